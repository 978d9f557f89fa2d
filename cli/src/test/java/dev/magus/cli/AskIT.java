package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.supervise.Support;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code magus run --ask}: the question on a real terminal (a detached tmux pane), answered with
 * keys, and the refusal of {@code --ask} where there is no terminal to ask on; a forwarded run
 * (a server running) asks through its client, the Java one and the native one when built.
 */
class AskIT {
    static Path magus;

    @TempDir
    Path root;
    Path home;
    Path ws;
    Path secret;
    Map<String, String> env;
    Tmux tmux;

    @BeforeAll
    static void findMagus() {
        magus = BinMagus.find("--ask tests");
        String why = Support.probe().available() ? "" : Support.probe().reason();
        if (!why.isEmpty()) {
            System.err.println("--ask tests skipped: " + why);
        }
        Assumptions.assumeTrue(why.isEmpty(), "--ask tests skipped: " + why);
    }

    @BeforeEach
    void setUp() throws IOException {
        home = Files.createDirectories(root.resolve("home")).toRealPath();
        ws = Files.createDirectories(root.resolve("ws")).toRealPath();
        Path tmp = Files.createDirectories(root.resolve("tmp")).toRealPath();
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        secret = Files.writeString(Files.createDirectories(home.resolve(".aws")).resolve("credentials"), "AKIAFAKEFAKE\n");
        env = BinMagus.env(home, tmp);
    }

    /** The magus server a forwarded case started, stopped after it. */
    boolean serverStarted;

    @AfterEach
    void killServer() throws Exception {
        if (tmux != null) {
            tmux.run("kill-server");
        }
        if (serverStarted) {
            BinMagus.run(BinMagus.command(magus, ws, env, "server", "stop"), 60, "magus server stop ended");
        }
    }

    @Test
    void withoutATerminalAskIsAUsageError() {
        ProcessBuilder pb = BinMagus.command(Path.of("/usr/bin/setsid"), ws, env, "-w", magus.toString(), "run", "--local",
                "--ask", "--", "cat", secret.toString());
        BinMagus.Result r = BinMagus.run(pb, 60, "magus ended");
        assertThat(r.status()).as(r.err()).isEqualTo(125);
        assertThat(r.err()).contains("--ask needs a terminal to ask on");
        assertThat(r.out()).doesNotContain("AKIA");
    }

    @Test
    void thePersonAtTheTerminalAllowsARefusedReadOnce() throws Exception {
        askInAPane("--ask");
        String screen = until("allow once");
        assertThat(screen).contains("cat (pid ").contains("asks to read " + secret);
        tmux.run("send-keys", "-t", "ask", "o", "Enter");
        screen = until("status=");
        assertThat(screen).contains("AKIAFAKEFAKE").contains("status=0");
    }

    @Test
    void noAnswerWithinTheAskTimeoutDenies() throws Exception {
        askInAPane("--ask --ask-timeout 1");
        until("allow once");
        // Nobody answers: a second later the read is refused, as a denial would refuse it.
        String screen = until("status=");
        assertThat(screen).contains("status=1").doesNotContain("AKIAFAKEFAKE");
    }

    @Test
    void anAskTimeoutOutsideItsRangeOrWithoutAskIsAUsageError() {
        for (String[] words : new String[][] {{"--ask", "--ask-timeout", "0"}, {"--ask", "--ask-timeout", "1.5"},
                {"--ask", "--ask-timeout", "3601"}, {"--ask-timeout", "5"}}) {
            List<String> argv = new ArrayList<>(List.of("-w", magus.toString(), "run", "--local"));
            argv.addAll(List.of(words));
            argv.addAll(List.of("--", "cat", secret.toString()));
            ProcessBuilder pb = BinMagus.command(Path.of("/usr/bin/setsid"), ws, env, argv.toArray(String[]::new));
            BinMagus.Result r = BinMagus.run(pb, 60, "magus ended");
            assertThat(r.status()).as("%s: %s", List.of(words), r.err()).isEqualTo(125);
            assertThat(r.err()).contains("--ask-timeout");
            assertThat(r.out()).doesNotContain("AKIA");
        }
    }

    /**
     * A forwarded run asks its client, which asks on its terminal as a local run does: allowed
     * once, the child reads the file, and its second read is asked again and denied. The server
     * ran it (its count of started runs grows), and the approved read is said approved.
     */
    @ParameterizedTest
    @ValueSource(strings = {"java", "native"})
    void aForwardedRunAsksThroughItsClient(String client) throws Exception {
        double before = forwardedInAPane(client, "cat '" + secret + "'; cat '" + secret + "'");
        String screen = until("allow once");
        assertThat(screen).contains("magus: cat (pid ").contains("asks to read " + secret + ", which the policy refuses.");
        tmux.run("send-keys", "-t", "ask", "o", "Enter");
        screen = until("AKIAFAKEFAKE");
        for (int i = 0; i < 300 && screen.split("allow once", -1).length < 3; i++) {
            Thread.sleep(100);
            screen = tmux.run("capture-pane", "-p", "-J", "-t", "ask");
        }
        assertThat(screen.split("allow once", -1)).as("asked a second time:%n%s", screen).hasSize(3);
        tmux.run("send-keys", "-t", "ask", "d", "Enter");
        screen = until("status=");
        assertThat(screen).contains("status=1").contains("magus: denied").contains("read approved once: ")
                .doesNotContain("served by this process only");
        assertThat(screen.split("AKIAFAKEFAKE", -1)).as("read once:%n%s", screen).hasSize(2);
        assertThat(startedRuns()).as("the server ran it").isEqualTo(before + 1);
    }

    /** Ctrl-C at a forwarded question gives it up (denied) and reaches the run, which ends. */
    @ParameterizedTest
    @ValueSource(strings = {"java", "native"})
    void ctrlCAtAForwardedQuestionDeniesAndStopsTheRun(String client) throws Exception {
        forwardedInAPane(client, "cat '" + secret + "'; sleep 120");
        until("allow once");
        tmux.run("send-keys", "-t", "ask", "C-c");
        String screen = until("status=");
        assertThat(screen).contains("(no answer: denied)").contains("status=130").doesNotContain("AKIAFAKEFAKE");
    }

    /**
     * A server started for this test, and {@code magus run --ask -- sh -c SCRIPT} in a detached pane
     * through {@code client} (java or native; a native one not built skips, saying why). Returns
     * the server's count of started runs before.
     */
    private double forwardedInAPane(String client, String script) throws Exception {
        Tmux.assume("tmux is not installed here: the --ask prompt needs a real terminal");
        Path nativeClient = magus.getParent().resolve("../cli/target/native/magus-client").normalize();
        if (client.equals("native") && !Files.isExecutable(nativeClient)) {
            String why = "forwarded --ask through the native client skipped: " + nativeClient
                    + " was not built (the build found no C compiler, cc)";
            System.err.println(why);
            Assumptions.assumeTrue(false, why);
        }
        BinMagus.Result started = BinMagus.run(BinMagus.command(magus, ws, env, "server", "start"), 120, "server start ended");
        assertThat(started.status()).as(started.toString()).isZero();
        serverStarted = true;
        double before = startedRuns();
        env.put("MAGUS_CLIENT", client);
        tmux = new Tmux("ask");
        String line = "(" + Tmux.magusLine(ws, env, magus, "run --ask -- sh -c \"" + script + "\"")
                + "); echo \"status=$?\"; sleep 60";
        tmux.run("new-session", "-d", "-x", "200", "-y", "50", "-s", "ask", line);
        return before;
    }

    /** The server's count of forwarded runs it started. */
    private double startedRuns() {
        String status = BinMagus.run(BinMagus.command(magus, ws, env, "server", "status"), 60, "server status ended").out();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("magus\\.server\\.forwarded\\{outcome=started\\}\\s+(\\d+)")
                .matcher(status);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    /** {@code magus run --local OPTIONS -- cat SECRET} in a detached pane, whose shell stays to show the status. */
    private void askInAPane(String options) throws Exception {
        Tmux.assume("tmux is not installed here: the --ask prompt needs a real terminal");
        tmux = new Tmux("ask");
        // "exec" only replaces the subshell.
        String line = "(" + Tmux.magusLine(ws, env, magus, "run --local " + options + " -- cat '" + secret + "'")
                + "); echo \"status=$?\"; sleep 60";
        tmux.run("new-session", "-d", "-x", "160", "-y", "40", "-s", "ask", line);
    }

    private String until(String text) throws Exception {
        String screen = "";
        for (int i = 0; i < 300 && !screen.contains(text); i++) {
            Thread.sleep(100);
            screen = tmux.run("capture-pane", "-p", "-J", "-t", "ask");
        }
        assertThat(screen).as("the pane shows '%s'", text).contains(text);
        return screen;
    }
}
