package dev.magus.cli.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** {@code bin/magus} run as a person runs it, in a test's directory and environment (never the user's). */
final class BinMagus {
    private BinMagus() {
    }

    record Ran(int status, String out) {
    }

    static String path() {
        return Path.of("..", "bin", "magus").toAbsolutePath().normalize().toString();
    }

    /** {@code bin/magus ARGS} in {@code cwd} with exactly {@code env}; stdout and stderr together. */
    static Ran run(Path cwd, Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(path());
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).directory(cwd.toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return new Ran(p.exitValue(), out);
    }

    /** PATH, the given HOME, a runtime dir and TMPDIR under {@code root}, and JAVA_HOME when set. */
    static Map<String, String> env(Path root, Path home, Path runtime) throws IOException {
        Map<String, String> env = new HashMap<>();
        env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("HOME", home.toString());
        env.put("XDG_RUNTIME_DIR", runtime.toString());
        env.put("TMPDIR", Files.createDirectories(root.resolve("tmp")).toString());
        if (System.getenv("JAVA_HOME") != null) {
            env.put("JAVA_HOME", System.getenv("JAVA_HOME"));
        }
        return env;
    }
}
