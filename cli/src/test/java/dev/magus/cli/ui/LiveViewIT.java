package dev.magus.cli.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.policy.LookPath;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code magus run --ui} in a real terminal: tmux gives bin/magus a pseudo-terminal of a fixed
 * size, the command is typed into its shell, and the screen is read back with capture-pane
 * while the run goes and once it ended.
 */
class LiveViewIT {
    static final int COLUMNS = 200;
    static final int ROWS = 50;
    static final long PATIENCE_MS = 180_000;
    static final Pattern TICKED = Pattern.compile(" magus run running (?!0:00\\.)[0-9]+:[0-9]{2}\\.[0-9] "); // the clock has moved
    static final Pattern EXIT = Pattern.compile("MAGUS-EXIT=[0-9]");

    @TempDir
    Path workspace;
    @TempDir
    Path outside;
    @TempDir
    Path sockets;

    @Test
    void offATerminalPrintsThePlainLines() throws Exception {
        int abi = LandlockProbe.kernel().abi();
        skipUnless(abi >= 3, "Landlock ABI " + abi + " here: mode required (and its kernel denials) needs 3 or newer");
        Files.writeString(outside.resolve("id_rsa"), "-----FAKE KEY AKIAFAKEFAKEFAKE-----\n");
        Files.writeString(workspace.resolve("magus.yaml"), "sandbox: {mode: required}\n");
        Path out = sockets.resolve("out.txt");
        Path err = sockets.resolve("err.txt");
        Process p = new ProcessBuilder(magus().toString(), "run", "--ui", "--", "sh", "-c",
                "echo hello; cat " + outside.resolve("id_rsa") + "; echo bye")
                .directory(workspace.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("magus ended").isTrue();

        assertThat(p.exitValue()).isZero();
        assertThat(Files.readString(out)).isEqualTo("hello\nbye\n");
        assertThat(Files.readString(err))
                .contains("magus: MGS2001 read denied: " + outside.resolve("id_rsa") + " is outside every read rule [kernel];")
                .doesNotContain("\u001b", "magus run running", "FAKEFAKE");
    }

    @Test
    void showsStatusWhileOutputScrollsThenASummary() throws Exception {
        Optional<Path> tmux = LookPath.find("tmux", System.getenv().getOrDefault("PATH", ""), Path.of("").toAbsolutePath());
        skipUnless(tmux.isPresent(), "tmux is not on PATH: the live view needs a real terminal to be tested in");
        int abi = LandlockProbe.kernel().abi();
        skipUnless(abi >= 3, "Landlock ABI " + abi + " here: mode required (and its kernel denials) needs 3 or newer");
        Path magus = magus();

        Files.writeString(outside.resolve("id_rsa"), "-----FAKE KEY AKIAFAKEFAKEFAKE-----\n");
        Files.writeString(outside.resolve("credentials"), "aws_secret_access_key = FAKEFAKEFAKEFAKE\n");
        Files.writeString(workspace.resolve("magus.yaml"), "sandbox: {mode: required}\n");
        Files.writeString(workspace.resolve("run.sh"), String.join("\n",
                "cat " + outside.resolve("id_rsa"),
                "cat " + outside.resolve("credentials"),
                "echo planted > " + outside.resolve("planted.txt"),
                "for i in 1 2 3 4 5 6; do echo \"tick $i from the child\"; sleep 1; done",
                "echo built > built.txt",
                ""));

        Tmux t = new Tmux(tmux.get(), sockets.resolve("tmux.sock"));
        Path shots = Path.of(System.getProperty("user.dir"), "target", "ui-it");
        Files.createDirectories(shots);
        String yamlHint = "allow: {sandbox: {allow: [{path: " + outside + ", mode: ro}]}}";
        try {
            t.run("-f", "/dev/null", "new-session", "-d", "-s", "ui", "-x", Integer.toString(COLUMNS),
                    "-y", Integer.toString(ROWS), "-c", workspace.toString(), "sh");
            t.run("send-keys", "-t", "ui", "-l", magus + " run --ui -- sh run.sh; echo MAGUS-EXIT=$?");
            t.run("send-keys", "-t", "ui", "Enter");

            // Mid-run: the child is past its second sleep, so a ticking clock shows a second or more.
            String mid = t.await(s -> TICKED.matcher(s).find() && s.contains("tick 3 from the child")
                    && s.contains("MGS2001 x2") && s.contains(yamlHint), LiveViewIT::exited);
            Files.writeString(shots.resolve("mid-run.txt"), mid);
            System.out.println("capture-pane while the run goes:\n" + mid);

            String end = t.await(LiveViewIT::exited, s -> false);
            Files.writeString(shots.resolve("end.txt"), end);
            System.out.println("capture-pane after the run:\n" + end);

            assertThat(mid).as("status area: command, mode, counters per code")
                    .contains("$ sh run.sh", "mode required", "MGS2001 x2", "MGS2002 x1", "denials 3");
            assertThat(mid).as("latest denials with path, right, layer and the YAML that allows each")
                    .contains("denied read  [kernel] " + outside.resolve("credentials") + "  MGS2001  " + yamlHint)
                    .contains("denied read  [kernel] " + outside.resolve("id_rsa") + "  MGS2001  " + yamlHint)
                    .contains("denied write [kernel] " + outside.resolve("planted.txt") + "  MGS2002  allow: {sandbox: {allow: [{path: "
                            + outside + ", mode: rw}]}}");
            assertThat(mid).as("the child's output scrolls above the status area").contains("tick 1 from the child", "tick 3 from the child");
            assertThat(lastRows(mid, 5)).as("the status area holds the bottom rows").startsWith(" magus run running");

            assertThat(end).contains("MAGUS-EXIT=0", "tick 6 from the child")
                    .contains("magus: exited, status 0 after ")
                    .contains("diagnostics: MGS2001 x2, MGS2002 x1")
                    .contains("magus: 3 accesses denied")
                    .contains("  read " + outside.resolve("id_rsa") + " [kernel] MGS2001\n")
                    .contains("magus: to allow them, add to magus.yaml:")
                    .contains("        - path: " + outside + "\n          mode: ro")
                    .doesNotContain(" magus run running")
                    .doesNotContain("FAKEFAKEFAKE");
            assertThat(workspace.resolve("built.txt")).as("the legitimate work ran").hasContent("built");
            assertThat(outside.resolve("planted.txt")).doesNotExist();
        } finally {
            t.run("kill-session", "-t", "ui");
            t.run("kill-server");
        }
    }

    private static Path magus() {
        Path magus = Path.of(System.getProperty("basedir", System.getProperty("user.dir"))).toAbsolutePath()
                .getParent().resolve("bin/magus");
        assertThat(magus).as("bin/magus of this checkout").isExecutable();
        return magus;
    }

    /** The shell printed the status ($? expanded; the typed command line shows it unexpanded). */
    private static boolean exited(String screen) {
        return EXIT.matcher(screen).find();
    }

    private static String lastRows(String screen, int n) {
        List<String> rows = screen.lines().toList();
        return String.join("\n", rows.subList(Math.max(0, rows.size() - n), rows.size()));
    }

    private static void skipUnless(boolean condition, String reason) {
        if (!condition) {
            System.err.println("LiveViewIT skipped: " + reason);
        }
        Assumptions.assumeTrue(condition, reason);
    }

    /** One private tmux server (its own socket file), so no session of the person running the tests is touched. */
    record Tmux(Path program, Path socket) {
        String run(String... args) throws IOException, InterruptedException {
            List<String> command = new ArrayList<>(List.of(program.toString(), "-S", socket.toString()));
            command.addAll(List.of(args));
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
            pb.environment().putIfAbsent("TERM", "xterm-256color");
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
            return out;
        }

        String screen() throws IOException, InterruptedException {
            return run("capture-pane", "-p", "-t", "ui");
        }

        /** Reads the screen until {@code wanted} holds; fails once {@code tooLate} holds first or patience runs out. */
        String await(Predicate<String> wanted, Predicate<String> tooLate) throws IOException, InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PATIENCE_MS);
            String screen = "";
            while (System.nanoTime() < deadline) {
                screen = screen();
                if (wanted.test(screen)) {
                    return screen;
                }
                if (tooLate.test(screen)) {
                    break;
                }
                Thread.sleep(100);
            }
            throw new AssertionError("the screen never showed what was awaited; last capture:\n" + screen);
        }
    }
}
