package dev.magus.landlock.launch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.policy.fs.AccessMode;
import dev.magus.policy.fs.Rule;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Assumptions;

/** Runs real children for the tests and collects what they print. */
final class Children {
    private Children() {
    }

    record Result(int status, String out, String err) {
        Result assertOk() {
            assertThat(status).as("status; stderr: %s", err).isZero();
            return this;
        }

        Result assertFailed() {
            assertThat(status).as("status; stdout: %s", out).isNotZero();
            return this;
        }
    }

    static final Path SH = real(Path.of("/bin/sh"));

    /** Skips, saying why on stderr, when this host cannot run the kernel-layer tests. */
    static int assumeLandlock() {
        boolean linux = System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT).contains("linux");
        if (!linux) {
            String why = "kernel-layer test skipped: not Linux (" + System.getProperty("os.name") + ")";
            System.err.println(why);
            Assumptions.assumeTrue(false, why);
        }
        int abi = LandlockProbe.kernel().abi();
        String why = "kernel-layer test skipped: this kernel has no Landlock (ABI 0)";
        if (abi == 0) {
            System.err.println(why);
        }
        Assumptions.assumeTrue(abi > 0, why);
        return abi;
    }

    static void assumeRoot() {
        boolean root = "root".equals(System.getProperty("user.name"));
        String why = "skipped: needs root, runs as " + System.getProperty("user.name");
        if (!root) {
            System.err.println(why);
        }
        Assumptions.assumeTrue(root, why);
    }

    /** The operating system's part of the core footprint: enough for /bin/sh and coreutils. */
    static List<Rule> system() {
        List<Rule> rules = new ArrayList<>();
        add(rules, "/usr", AccessMode.RX);
        add(rules, "/bin", AccessMode.RX);
        add(rules, "/sbin", AccessMode.RX);
        add(rules, "/lib", AccessMode.RX);
        add(rules, "/lib64", AccessMode.RX);
        add(rules, "/etc", AccessMode.R);
        add(rules, "/dev/null", AccessMode.RW);
        add(rules, "/proc", AccessMode.R);
        return rules;
    }

    static List<Rule> systemPlus(Rule... more) {
        List<Rule> rules = system();
        rules.addAll(List.of(more));
        return rules;
    }

    static Rule rule(Path p, AccessMode mode) {
        return new Rule(real(p), mode, "test:" + p.getFileName());
    }

    private static void add(List<Rule> rules, String path, AccessMode mode) {
        Path p = Path.of(path);
        if (Files.exists(p)) {
            rules.add(new Rule(real(p), mode, "core:" + path));
        }
    }

    static Path real(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Map<String, String> env(Path home) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", "/usr/bin:/bin");
        env.put("HOME", home.toString());
        env.put("LC_ALL", "C");
        return env;
    }

    /** {@code sh -c script} in {@code cwd}. */
    static Result sh(Confinement c, Path cwd, Map<String, String> env, String script) {
        List<String> argv = List.of("sh", "-c", script);
        return run(new SpawnRequest(SH, argv, env, cwd, Stdio.NULL_INPUT), c);
    }

    static Result run(SpawnRequest request, Confinement c) {
        Spawn s = Launcher.get().spawn(request, c);
        if (s instanceof Spawn.NotStarted n) {
            return new Result(n.status(), "", n.message());
        }
        return collect(((Spawn.Started) s).child());
    }

    static Result collect(Child child) {
        try (child) {
            CompletableFuture<String> err = readAsync(child.stderr());
            String out = new String(child.stdout().readAllBytes(), StandardCharsets.UTF_8);
            Exit exit = child.waitFor();
            return new Result(exit.status(), out, err.get());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    static CompletableFuture<String> readAsync(InputStream in) {
        CompletableFuture<String> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, "test-stderr-reader");
        t.setDaemon(true);
        t.start();
        return f;
    }
}
