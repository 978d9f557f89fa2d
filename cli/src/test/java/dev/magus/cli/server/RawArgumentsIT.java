package dev.magus.cli.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An argument or {@code --env} value that is not UTF-8 reaches the child as the bytes the
 * caller wrote, on every path: locally, forwarded by either client, and forwarded by the full
 * command line. The JVM decodes its arguments, and a byte it could not decode used to reach
 * the child as U+FFFD's three bytes.
 */
class RawArgumentsIT {
    @TempDir
    Path root;

    /**
     * The bytes the child is given: {@code a\376\342\202b\303\251|x\377y\303(|p\377q}, the last
     * from a variable it inherits.
     */
    private static final String EXPECTED = "61 fe e2 82 62 c3 a9 7c 78 ff 79 c3 28 7c 70 ff 71";

    String sh(Map<String, String> env, String options) throws Exception {
        String script = "a=$(printf 'a\\376\\342\\202b\\303\\251'); v=$(printf 'x\\377y\\303('); W=$(printf 'p\\377q');"
                + " export W; \"$MAGUS\" run " + options + " --env \"V=$v\" -- sh -c 'printf %s \"$1|$V|$W\" | od -An -tx1 -w64' sh \"$a\"";
        ProcessBuilder pb = new ProcessBuilder("sh", "-c", script).redirectErrorStream(true)
                .directory(root.resolve("ws").toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        pb.environment().put("MAGUS", Path.of("..", "bin", "magus").toAbsolutePath().normalize().toString());
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Process p = pb.start();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return String.join("\n", out.get(10, TimeUnit.SECONDS).lines().filter(l -> !l.startsWith("magus: ")).toList())
                .trim();
    }

    @Test
    void bytesThatAreNotUtf8ReachTheChildAsWritten() throws Exception {
        boolean linux = System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux");
        Assumptions.assumeTrue(linux, "raw argument test skipped: needs Linux (os " + System.getProperty("os.name") + ")");
        Path home = Files.createDirectories(root.resolve("home"));
        Path runtime = Files.createDirectories(root.resolve("runtime"));
        Files.createDirectories(root.resolve("ws"));
        Files.writeString(root.resolve("ws/magus.yaml"), "sandbox:\n  mode: best-effort\n  env:\n    passthrough: [W]\n");
        Map<String, String> env = new java.util.HashMap<>();
        env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("HOME", home.toString());
        env.put("LANG", "C.UTF-8");
        env.put("XDG_RUNTIME_DIR", runtime.toString());
        env.put("TMPDIR", Files.createDirectories(root.resolve("tmp")).toString());
        if (System.getenv("JAVA_HOME") != null) {
            env.put("JAVA_HOME", System.getenv("JAVA_HOME"));
        }
        assertThat(sh(env, "--local")).isEqualTo(EXPECTED);
        assertThat(sh(env, "")).as("no server: local").isEqualTo(EXPECTED);
        ProcessBuilder start = new ProcessBuilder(Path.of("..", "bin", "magus").toAbsolutePath().normalize().toString(),
                "server", "start").directory(root.resolve("ws").toFile()).redirectErrorStream(true);
        start.environment().clear();
        start.environment().putAll(env);
        Process s = start.start();
        String said = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(s.waitFor()).as(said).isZero();
        try {
            for (String client : List.of("native", "java")) {
                env.put("MAGUS_CLIENT", client);
                assertThat(sh(env, "")).as(client).isEqualTo(EXPECTED);
            }
            // Any option is forwarded: the server reads the words with the command line's model.
            assertThat(sh(env, "-vq")).as("-vq").isEqualTo(EXPECTED);
            ProcessBuilder status = new ProcessBuilder(Path.of("..", "bin", "magus").toAbsolutePath().normalize().toString(),
                    "server", "status").directory(root.resolve("ws").toFile()).redirectErrorStream(true);
            status.environment().clear();
            status.environment().putAll(env);
            Process st = status.start();
            assertThat(new String(st.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                    .containsPattern("magus\\.server\\.forwarded\\{outcome=started\\}\\s+3\\b");
            st.waitFor();
        } finally {
            ProcessBuilder stop = new ProcessBuilder(Path.of("..", "bin", "magus").toAbsolutePath().normalize().toString(),
                    "server", "stop").directory(root.resolve("ws").toFile()).redirectErrorStream(true);
            stop.environment().clear();
            stop.environment().putAll(env);
            Process sp = stop.start();
            sp.getInputStream().readAllBytes();
            sp.waitFor();
        }
    }
}
