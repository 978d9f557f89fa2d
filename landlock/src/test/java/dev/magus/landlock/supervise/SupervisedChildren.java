package dev.magus.landlock.supervise;

import dev.magus.events.Diagnostic;
import dev.magus.events.Mode;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.compile.NetRules;
import dev.magus.landlock.denials.DenialConfirmer;
import dev.magus.landlock.launch.Child;
import dev.magus.landlock.launch.Confinement;
import dev.magus.landlock.launch.Exit;
import dev.magus.landlock.launch.Launcher;
import dev.magus.landlock.launch.Spawn;
import dev.magus.landlock.launch.SpawnRequest;
import dev.magus.landlock.launch.Stdio;
import dev.magus.landlock.seccomp.SocketRules;
import dev.magus.policy.fs.AccessMode;
import dev.magus.policy.fs.Rule;
import dev.magus.policy.net.NetworkMode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.junit.jupiter.api.Assumptions;

/** Real supervised children, run as {@code nobody} through {@code setpriv}, and what their supervisor reported. */
final class SupervisedChildren {
    static final Path SH = Path.of("/bin/sh");
    static final Path SETPRIV = Path.of("/usr/bin/setpriv");

    private SupervisedChildren() {
    }

    record Result(int status, String out, String err, List<Diagnostic> denials, Supervisor supervisor) {
    }

    /** Skips, saying why on stderr, where a supervised child cannot run as nobody here. */
    static void assume() {
        assume(System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT).contains("linux"), "not Linux");
        assume(LandlockProbe.kernel().abi() > 0, "this kernel has no Landlock");
        assume(Support.probe().available(), Support.probe().reason());
        assume("root".equals(System.getProperty("user.name")), "dropping to nobody needs root (runs as "
                + System.getProperty("user.name") + ")");
        assume(Files.isExecutable(SETPRIV), "no " + SETPRIV);
    }

    static void assume(boolean ok, String why) {
        if (!ok) {
            System.err.println("supervisor test skipped: " + why);
        }
        Assumptions.assumeTrue(ok, "supervisor test skipped: " + why);
    }

    /** A directory nobody may enter and read (a JUnit temp dir is root's alone). */
    static Path open(Path dir) {
        try {
            Files.createDirectories(dir);
            for (Path p = dir; p != null && p.getNameCount() > 1; p = p.getParent()) {
                if (Files.getOwner(p).getName().equals("root") && p.startsWith(System.getProperty("java.io.tmpdir"))) {
                    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxrwxrwx"));
                }
            }
            return dir.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<Rule> rules(Path workspace) {
        List<Rule> rules = new ArrayList<>();
        for (String s : List.of("/usr", "/bin", "/sbin", "/lib", "/lib64")) {
            add(rules, s, AccessMode.RX);
        }
        for (String s : List.of("/etc", "/proc", "/sys")) {
            add(rules, s, AccessMode.R);
        }
        add(rules, "/dev/null", AccessMode.RW);
        add(rules, "/dev/urandom", AccessMode.R);
        rules.add(new Rule(workspace, AccessMode.RWX, "test:workspace"));
        return rules;
    }

    private static void add(List<Rule> rules, String path, AccessMode mode) {
        Path p = Path.of(path);
        if (Files.exists(p)) {
            try {
                rules.add(new Rule(p.toRealPath(), mode, "core:" + path));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** {@code sh -c script} as nobody in {@code cwd}, supervised, under network {@code net}. */
    static Result sh(Path cwd, Map<String, String> env, NetworkMode net, DenialConfirmer policy, String script) {
        return sh(cwd, env, net, policy, script, s -> { });
    }

    /** As above; {@code started} runs once the child is running. */
    static Result sh(Path cwd, Map<String, String> env, NetworkMode net, DenialConfirmer policy, String script,
            Consumer<Supervisor> started) {
        return sh(cwd, env, net, policy, script, started, java.util.Optional.empty());
    }

    /** As above, with the run's approver. */
    static Result sh(Path cwd, Map<String, String> env, NetworkMode net, DenialConfirmer policy, String script,
            Consumer<Supervisor> started, java.util.Optional<Approval> approval) {
        NetRules netRules = net == NetworkMode.OPEN ? NetRules.OPEN : new NetRules(net, new TreeSet<>(), new TreeSet<>());
        List<String> argv = List.of("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                SH.toString(), "-c", script);
        try (Confinement c = Confinement.prepare(Mode.REQUIRED, rules(cwd), netRules, SocketRules.of(net, false),
                LandlockProbe.kernel())) {
            Supervisor supervisor = Supervisor.start(policy, cwd, approval);
            CompletableFuture<List<Diagnostic>> denials = supervisor.denials().collectList().toFuture();
            try {
                Spawn s = Launcher.get().spawn(new SpawnRequest(SETPRIV, argv, env, cwd, Stdio.NULL_INPUT), c, supervisor);
                if (s instanceof Spawn.NotStarted n) {
                    throw new AssertionError("not started: " + n.message());
                }
                try (Child child = ((Spawn.Started) s).child()) {
                    started.accept(supervisor);
                    CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(child.stderr()));
                    String out = read(child.stdout());
                    Exit exit = child.waitFor();
                    supervisor.close();
                    return new Result(exit.status(), out, err.get(), denials.get(5, java.util.concurrent.TimeUnit.SECONDS),
                            supervisor);
                }
            } catch (Exception e) {
                throw new AssertionError(e);
            } finally {
                supervisor.close();
            }
        }
    }

    private static String read(java.io.InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Map<String, String> env(Path home) {
        return Map.of("PATH", "/usr/bin:/bin", "HOME", home.toString(), "LC_ALL", "C");
    }

    static Duration grace() {
        return Duration.ofSeconds(5);
    }
}
