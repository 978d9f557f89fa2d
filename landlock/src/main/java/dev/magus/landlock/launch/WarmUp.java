package dev.magus.landlock.launch;

import com.sun.jna.Pointer;
import dev.magus.landlock.abi.Decision;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.compile.CompiledRuleset;
import dev.magus.landlock.sys.Natives;
import dev.magus.events.Mode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs a launcher's exact launch path before any real spawn, from the ordinary thread that
 * builds the launcher, so a confined launch thread never loads a class or starts a thread
 * (they would inherit its domain for good; a class that fails to load there stays failed).
 * Every way a launch can go is taken once, unconfined and under a domain that denies nothing.
 *
 * <p>A one-shot process ({@link Launcher#oneShot()}) calls {@link #withoutChildren()} instead:
 * a launch thread runs only {@link LaunchSequence} (or {@link SpareThread#run}), whose classes
 * its creator initialised, calling only direct-mapped natives on memory the caller built; it
 * never allocates native memory (no JNA cleaner thread) nor touches {@code Process} or a
 * scheduler. {@code NoWarmUpTest} holds this.
 */
final class WarmUp {
    private WarmUp() {
    }

    /**
     * Initialises, on this ordinary thread, every class a launch thread runs, so that none
     * is first initialised there even should a caller not have done it yet; no child is spawned.
     */
    static void withoutChildren() {
        for (Class<?> c : new Class<?>[] {LaunchSequence.class, SpareThread.class, CapabilityDrop.class,
                Natives.syscalls().getClass(), Pointer.class, LockSupport.class}) {
            try {
                Class.forName(c.getName(), true, c.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("launcher preparation failed", e);
            }
        }
    }

    /** {@link #run(Launcher)}, or with {@code children} false only {@link #withoutChildren()}. */
    static void run(Launcher launcher, boolean children) {
        if (children) {
            run(launcher);
        } else {
            withoutChildren();
        }
    }

    static void run(Launcher launcher) {
        Path script = null;
        // Both ways a launch thread comes to run: handed off as a spare, and created fresh.
        SpareThreads warmPool = new SpareThreads(1, false);
        SpareThreads fresh = new SpareThreads(0, false);
        try {
            try {
                script = Files.createTempFile("magus-warm-", ".sh",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                Files.writeString(script, "exit 0\n");
            } catch (IOException e) {
                // The ENOEXEC retry only repeats posix_spawn, already warmed by the other spawns.
                script = null;
            }
            under(launcher, Confinement.off(), script, warmPool, fresh);
            int abi = LandlockProbe.kernel().abi();
            if (abi > 0) {
                try (CompiledRuleset all = CompiledRuleset.allowAll(abi)) {
                    Decision.Confine d = new Decision.Confine(Mode.BEST_EFFORT, all.abi(), List.of(), Optional.empty());
                    under(launcher, new Confinement.Kernel(d, all), script, warmPool, fresh);
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("launcher warm-up failed", e);
        } finally {
            warmPool.close();
            if (script != null) {
                try {
                    Files.deleteIfExists(script);
                } catch (IOException ignored) {
                    // a leftover empty script in the temp dir is harmless
                }
            }
        }
    }

    private static void under(Launcher launcher, Confinement c, Path script, SpareThreads warmPool, SpareThreads fresh)
            throws IOException {
        Path cwd = Path.of("/");
        Path exe = Files.isExecutable(Path.of("/bin/true")) ? Path.of("/bin/true") : NativeArgs.SHELL;
        List<String> noArgs = exe.equals(NativeArgs.SHELL) ? List.of("-c", ":") : List.of();
        Map<String, String> env = Map.of("PATH", "/usr/bin:/bin");
        for (Stdio stdio : Stdio.Standard.values()) {
            if (stdio == Stdio.INHERIT) {
                continue; // same code path minus the dup2s; not worth writing to magus's terminal
            }
            warmPool.refill();
            warmPool.awaitStarted();
            drain(launcher.spawn(SpawnRequest.of(exe, noArgs, env, cwd).withStdio(stdio), c, warmPool));
        }
        if (script != null && Files.isExecutable(NativeArgs.SHELL)) {
            warmPool.refill();
            warmPool.awaitStarted();
            drain(launcher.spawn(SpawnRequest.of(script, List.of(), env, cwd), c, warmPool));
        }
        warmPool.refill();
        warmPool.awaitStarted();
        drain(launcher.spawn(SpawnRequest.of(Path.of("/nonexistent/magus-warm-up"), List.of(), env, cwd), c, warmPool));
        drain(launcher.spawn(SpawnRequest.of(exe, noArgs, env, cwd), c, fresh));
    }

    private static void drain(Spawn s) throws IOException {
        if (s instanceof Spawn.Started st) {
            try (Child child = st.child()) {
                child.stdin().close();
                child.stdout().readAllBytes();
                child.stderr().readAllBytes();
                child.waitFor();
                child.poll();
                child.killGroup(0);
            }
        }
    }
}
