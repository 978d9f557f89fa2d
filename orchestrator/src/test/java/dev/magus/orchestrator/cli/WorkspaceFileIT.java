package dev.magus.orchestrator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.abi.LandlockProbe;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code bin/magus} as a process, in a workspace whose magus.yaml exists but is no readable
 * regular file: the run is refused with 125 and MGS2004 naming magus.yaml, the child never
 * starts, and {@code magus policy} refuses too instead of saying "no magus.yaml" with the
 * sandbox off. Before, each of these kinds made the workspace run unconfined.
 */
class WorkspaceFileIT {
    static Path magus;

    @TempDir
    Path root;

    @BeforeAll
    static void findMagus() {
        boolean linux = System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux");
        int abi = linux ? LandlockProbe.kernel().abi() : 0;
        String why = "bin/magus end-to-end tests skipped: need Linux with Landlock ABI 3+ (ABI " + abi + ")";
        if (abi < 3) {
            System.err.println(why);
        }
        Assumptions.assumeTrue(abi >= 3, why);
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isExecutable(d.resolve("bin/magus")) && Files.isRegularFile(d.resolve("orchestrator/target/orchestrator.jar"))) {
                magus = d.resolve("bin/magus");
                return;
            }
        }
        throw new IllegalStateException("no built checkout above " + Path.of("").toAbsolutePath());
    }

    record Result(int status, String out, String err) {
        @Override
        public String toString() {
            return "status " + status + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    @ParameterizedTest(name = "magus.yaml as {0}")
    @ValueSource(strings = {"a dangling link", "a directory", "a fifo", "a link to /dev/zero", "a link to itself"})
    void aWorkspaceFileThatIsNoReadableFileRefusesTheRunAndThePolicy(String kind) throws Exception {
        Path home = Files.createDirectories(root.resolve("home")).toRealPath();
        Path ws = Files.createDirectories(root.resolve("ws")).toRealPath();
        Path tmp = Files.createDirectories(root.resolve("tmp")).toRealPath();
        Path yaml = ws.resolve("magus.yaml");
        switch (kind) {
            case "a dangling link" -> Files.createSymbolicLink(yaml, Path.of("gone.yaml"));
            case "a directory" -> Files.createDirectories(yaml);
            case "a fifo" -> assertThat(new ProcessBuilder("mkfifo", yaml.toString()).start().waitFor()).isZero();
            case "a link to /dev/zero" -> Files.createSymbolicLink(yaml, Path.of("/dev/zero"));
            case "a link to itself" -> Files.createSymbolicLink(yaml, Path.of("magus.yaml"));
            default -> throw new IllegalArgumentException(kind);
        }

        Result run = magus(ws, home, tmp, "run", "--", "sh", "-c", "touch spawned");
        assertThat(run.status()).as("%s", run).isEqualTo(125);
        assertThat(run.err()).as("%s", run).startsWith("magus: MGS2004 magus.yaml: ").doesNotContain("\tat ");
        assertThat(ws.resolve("spawned")).as("the child never started").doesNotExist();

        Result policy = magus(ws, home, tmp, "policy");
        assertThat(policy.status()).as("%s", policy).isEqualTo(125);
        assertThat(policy.out()).doesNotContain("no magus.yaml").doesNotContain("mode ");
        assertThat(policy.err()).startsWith("magus: MGS2004 magus.yaml: ");
    }

    private Result magus(Path ws, Path home, Path tmp, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(magus.toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(ws.toFile());
        pb.environment().clear();
        pb.environment().put("PATH", Optional.ofNullable(System.getenv("PATH")).orElse("/usr/bin:/bin"));
        pb.environment().put("HOME", home.toString());
        pb.environment().put("LANG", "C.UTF-8");
        pb.environment().put("TMPDIR", tmp.toString());
        pb.environment().put("XDG_CACHE_HOME", home.resolve(".cache").toString());
        pb.environment().put("XDG_STATE_HOME", home.resolve(".local/state").toString());
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        try {
            Process p = pb.start();
            CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(p.getInputStream()));
            boolean ended = p.waitFor(60, TimeUnit.SECONDS);
            if (!ended) {
                p.destroyForcibly();
            }
            assertThat(ended).as("bin/magus %s ended (a fifo must not block it)", List.of(args)).isTrue();
            return new Result(p.exitValue(), out.join(), err.join());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String read(java.io.InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
