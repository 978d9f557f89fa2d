package dev.magus.cli.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/magus server start|status|stop} and {@code magus run} forwarding by itself, as a
 * person runs them, with a fake home and runtime dir (never the user's).
 */
class ServerCliIT {
    @TempDir
    Path root;

    record Ran(int status, String out) {
    }

    Ran magus(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of("..", "bin", "magus").toAbsolutePath().normalize().toString());
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).directory(root.resolve("ws").toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return new Ran(p.exitValue(), out);
    }

    @Test
    void startRunForwardsStatusCountsStop() throws Exception {
        boolean linux = System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux");
        String why = "server test skipped: forwarded runs start children, which needs Linux (os "
                + System.getProperty("os.name") + ")";
        if (!linux) {
            System.err.println(why);
        }
        Assumptions.assumeTrue(linux, why);
        Path home = Files.createDirectories(root.resolve("home"));
        Path runtime = Files.createDirectories(root.resolve("runtime"));
        Files.createDirectories(root.resolve("ws"));
        Map<String, String> env = new java.util.HashMap<>();
        env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("HOME", home.toString());
        env.put("XDG_RUNTIME_DIR", runtime.toString());
        env.put("TMPDIR", Files.createDirectories(root.resolve("tmp")).toString());
        if (System.getenv("JAVA_HOME") != null) {
            env.put("JAVA_HOME", System.getenv("JAVA_HOME"));
        }
        try {
            assertThat(magus(env, "server", "status").status()).isEqualTo(3);
            Ran started = magus(env, "server", "start");
            assertThat(started.status()).as(started.out()).isZero();
            assertThat(runtime.resolve("magus/server.sock")).exists();

            Ran forwarded = magus(env, "run", "--", "sh", "-c", "printf forwarded; exit 4");
            assertThat(forwarded.status()).isEqualTo(4);
            assertThat(forwarded.out()).isEqualTo("forwarded");
            assertThat(magus(env, "run", "--local", "--", "true").status()).isZero();

            Ran status = magus(env, "server", "status");
            assertThat(status.status()).isZero();
            assertThat(status.out()).contains("magus server running").containsPattern(
                    "magus\\.server\\.forwarded\\{outcome=started\\}\\s+1\\b");
        } finally {
            Ran stopped = magus(env, "server", "stop");
            assertThat(stopped.out()).contains("stopped");
        }
        assertThat(runtime.resolve("magus/server.sock")).doesNotExist();
    }
}
