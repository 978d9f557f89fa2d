package dev.magus.landlock.launch;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import dev.magus.landlock.abi.AbiRights;
import dev.magus.landlock.abi.Decision;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.compile.CompiledRuleset;
import dev.magus.landlock.sys.Errno;
import dev.magus.landlock.sys.LibC;
import dev.magus.landlock.sys.Natives;
import dev.magus.policy.mode.Mode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Starts children confined while magus itself never is. Each confined spawn gets a
 * short-lived platform thread {@code magus-sandbox-launch-N} of its own that sets
 * no_new_privs, enters the policy's Landlock domain (a root child's capabilities cut too) and
 * calls {@code posix_spawn}; then the thread ends, running nothing else, so no JVM thread ever
 * keeps a domain. The thread is a never-used spare parked in advance ({@link SpareThreads},
 * {@code -Dmagus.launch.spares=N}, default 2), which made the capability cut on itself before
 * parking, so neither its creation nor the cut is on the spawn's path; a fresh thread when none
 * is ready. The spare is moved to the caller's CPU when it is handed the spawn, and gives that
 * CPU back to the caller once {@code posix_spawn} has returned and the spawn structures are
 * freed: on a VM, waking a thread on an idle CPU costs a hundred microseconds or more, a switch
 * on the same CPU a few. The caller waits for
 * {@code posix_spawn}'s result only, not for the thread's teardown, spinning for it up to
 * {@code -Dmagus.launch.spin=MICROS} before parking. Everything the thread touches is built
 * beforehand on the calling thread as native memory. An unconfined spawn (mode off) needs none
 * of this and calls {@code posix_spawn} on the calling thread.
 *
 * <p>A confined JVM thread must never run anything else: threads it starts (the JDK's
 * process reaper, ForkJoin and Reactor workers) would inherit the domain for good, and a class
 * that fails to load there stays failed for every thread. Hence the warm-up: {@link #get()}
 * runs the exact launch path, on a handed-off spare and on a fresh thread, under a domain that
 * denies nothing, before any real spawn.
 */
public final class Launcher {
    private static final AtomicLong THREADS = new AtomicLong();
    static final long LAUNCH_STACK = 256 * 1024;
    /**
     * System property: how long (microseconds) a caller spins for its spawn's result before
     * parking. Default 0: measured side by side on a 2-vCPU VM, a spinning caller made the
     * spawn slower (it holds the CPU the new child needs); see bench/README.md.
     */
    static final String SPIN_PROPERTY = "magus.launch.spin";
    static final long DEFAULT_SPIN_MICROS = 0;
    /** Why the spin property is invalid, or null; raised by every Launcher construction, not at class load. */
    private static final String SPIN_SETTINGS_ERROR = spinSettingsError();
    static final long SPIN_NANOS = spinOrDefault(SPIN_PROPERTY, DEFAULT_SPIN_MICROS);
    private static final Path SHELL = Path.of("/bin/sh");
    private static volatile Launcher instance;

    private final CapabilityDrop caps;
    private final SpareThreads spares;

    Launcher(boolean dropCapabilities) {
        this(dropCapabilities, null);
    }

    /** @param spares the pool of parked launch threads, or {@code null} for the process's shared one */
    Launcher(boolean dropCapabilities, SpareThreads spares) {
        if (SPIN_SETTINGS_ERROR != null) {
            throw new IllegalArgumentException(SPIN_SETTINGS_ERROR);
        }
        Natives.init();
        this.caps = dropCapabilities ? CapabilityDrop.forProcess() : CapabilityDrop.plan(false);
        warm();
        this.spares = spares != null ? spares : SpareThreads.shared();
    }

    /** The process's launcher, initialised (natives, capability plan, warm-up) on first use from an ordinary thread. */
    public static Launcher get() {
        Launcher l = instance;
        if (l == null) {
            synchronized (Launcher.class) {
                l = instance;
                if (l == null) {
                    l = new Launcher(true);
                    instance = l;
                }
            }
        }
        return l;
    }

    /** The parked launch threads this launcher hands spawns to. */
    SpareThreads spares() {
        return spares;
    }

    /** Whether children of a root (or otherwise privileged) magus are cut to the kept capabilities. */
    public boolean dropsCapabilities() {
        return caps.active;
    }

    /**
     * Starts {@code request} under {@code confinement}. Blocks for the spawn only (about a
     * millisecond), not for the child.
     *
     * @return the running child, or why the command did not start (127 / 126)
     * @throws SandboxException when the kernel layer cannot be applied to this child (MGS2012
     *                          in required mode, MGS2004 otherwise): a child never starts with
     *                          less confinement than its decision promised
     */
    public Spawn spawn(SpawnRequest request, Confinement confinement) {
        return spawn(request, confinement, spares);
    }

    private Spawn spawn(SpawnRequest request, Confinement confinement, SpareThreads pool) {
        // A fresh thread inherits the caller's domain, no_new_privs and capabilities; a spare has
        // the process's (cut). Magus's own threads never set no_new_privs: a caller that has it
        // may be confined itself, and its child must inherit that, so it gets a fresh thread.
        // An unconfined spawn needs no thread of its own at all.
        boolean confined = confinement instanceof Confinement.Kernel;
        SpareThreads.Spare spare = confined && pool.cut() == caps && callerMayUseSpare() ? pool.take() : null;
        CompiledRuleset.Lease lease = null;
        try {
            lease = confinement instanceof Confinement.Kernel k ? k.ruleset().lease() : null;
            SpareThreads.Spare owned = spare;
            spare = null; // launch owns it from here: it hands it off or gives it back
            return launch(request, confinement.mode(), lease, pool, owned);
        } finally {
            if (spare != null) {
                pool.giveBack(spare);
            }
            if (lease != null) {
                lease.close();
            }
        }
    }

    /** {@link #spawn} on Reactor's {@code boundedElastic}, for pipelines that must not block their thread. */
    public Mono<Spawn> spawnLater(SpawnRequest request, Confinement confinement) {
        return Mono.fromCallable(() -> spawn(request, confinement)).subscribeOn(Schedulers.boundedElastic());
    }

    private Spawn launch(SpawnRequest request, Mode mode, CompiledRuleset.Lease lease, SpareThreads pool,
                         SpareThreads.Spare spare) {
        // Arguments first: a NUL in one is the caller's error, found before any descriptor exists.
        NativeArgs args = null;
        Pipes pipes;
        try {
            args = NativeArgs.build(request, SHELL);
            pipes = Pipes.open(request.stdio());
        } catch (Throwable e) {
            // Errors too (no memory for native buffers): the taken spare must not be lost.
            if (args != null) {
                args.close();
            }
            if (spare != null) {
                pool.giveBack(spare);
            }
            throw e;
        }
        boolean fileActionsReady = false;
        boolean attrReady = false;
        boolean handedOff = false;
        // Once the sequence runs, it releases the spawn structures and the child's pipe ends itself.
        boolean sequenceReleases = false;
        LaunchSequence seq = new LaunchSequence();
        try {
            check(LibC.posix_spawn_file_actions_init(args.fileActions), "posix_spawn_file_actions_init");
            fileActionsReady = true;
            if (request.stdio() != Stdio.INHERIT) {
                check(LibC.posix_spawn_file_actions_adddup2(args.fileActions, pipes.childIn, 0), "adddup2");
                check(LibC.posix_spawn_file_actions_adddup2(args.fileActions, pipes.childOut, 1), "adddup2");
                check(LibC.posix_spawn_file_actions_adddup2(args.fileActions, pipes.childErr, 2), "adddup2");
            }
            check(LibC.posix_spawn_file_actions_addchdir_np(args.fileActions, args.cwd), "addchdir_np");
            // Not optional: the JVM holds descriptors without O_CLOEXEC, and a child would read through them.
            check(LibC.posix_spawn_file_actions_addclosefrom_np(args.fileActions, 3), "addclosefrom_np");
            check(LibC.posix_spawnattr_init(args.attr), "posix_spawnattr_init");
            attrReady = true;
            short flags = (short) (LibC.POSIX_SPAWN_SETSIGDEF | LibC.POSIX_SPAWN_SETSIGMASK);
            if (request.stdio() != Stdio.INHERIT) {
                // A session of its own: no controlling terminal to inject keystrokes into, and a group to kill.
                flags |= LibC.POSIX_SPAWN_SETSID;
            }
            check(LibC.posix_spawnattr_setflags(args.attr, flags), "posix_spawnattr_setflags");
            LibC.sigfillset(args.sigDefault);
            LibC.sigemptyset(args.sigMask);
            check(LibC.posix_spawnattr_setsigdefault(args.attr, args.sigDefault), "setsigdefault");
            check(LibC.posix_spawnattr_setsigmask(args.attr, args.sigMask), "setsigmask");

            seq.confine = lease != null;
            seq.rulesetFd = lease != null ? lease.fd() : -1;
            seq.restrictFlags = lease != null ? AbiRights.restrictFlags(lease.abi()) : 0;
            seq.caps = caps;
            seq.pidOut = args.pid;
            seq.path = args.path;
            seq.fileActions = args.fileActions;
            seq.attr = args.attr;
            seq.argv = args.argv;
            seq.envp = args.envp;
            seq.shellPath = args.shellPath;
            seq.shellArgv = args.shellArgv;
            seq.childIn = pipes.childIn;
            seq.childOut = pipes.childOut;
            seq.childErr = pipes.childErr;
            if (lease == null) {
                // Nothing to confine (mode off): posix_spawn right here, as ProcessBuilder would;
                // the child gets this thread's state, exactly what a fresh thread would give it.
                sequenceReleases = true;
                seq.run();
            } else {
                seq.waiter = Thread.currentThread();
                // The used spare is replaced by the refill thread, woken by the launch thread.
                seq.refiller = spare != null ? pool.refiller() : null;
                Thread launchThread = startLaunchThread(seq, pool, spare);
                handedOff = spare != null;
                // Until posix_spawn has returned; the launch thread ends right after, by itself.
                sequenceReleases = seq.awaitDone(SPIN_NANOS, launchThread);
                if (!sequenceReleases) {
                    throw new IllegalStateException("the launch thread " + launchThread.getName()
                            + " ended without running its spawn");
                }
            }
        } catch (Throwable e) {
            // Errors too (a thread that could not be created): the parent's ends must not leak.
            pipes.closeParentEnds();
            throw e;
        } finally {
            if (spare != null && !handedOff) {
                pool.giveBack(spare);
            }
            if (sequenceReleases) {
                pipes.childEndsClosed();
            } else {
                if (fileActionsReady) {
                    LibC.posix_spawn_file_actions_destroy(args.fileActions);
                }
                if (attrReady) {
                    LibC.posix_spawnattr_destroy(args.attr);
                }
                pipes.closeChildEnds();
            }
        }
        int pid = args.pid.getInt(0);
        args.close();
        if (seq.crash != null) {
            pipes.closeParentEnds();
            throw new IllegalStateException("launch thread failed", seq.crash);
        }
        if (seq.failedStep == LaunchSequence.STEP_AFFINITY) {
            pipes.closeParentEnds();
            // Not a confinement failure: the child would only have been started on one CPU.
            throw new IllegalStateException("the launch thread could not take its CPU mask back (sched_setaffinity: "
                    + Errno.name(seq.errno) + "); " + request.executable() + " was not started");
        }
        if (seq.failedStep != LaunchSequence.STEP_NONE) {
            pipes.closeParentEnds();
            throw confinementFailed(mode, request, seq);
        }
        if (seq.spawnResult != 0) {
            pipes.closeParentEnds();
            // Asked only now, off the path of every spawn that works: the child's chdir failed.
            if (!Files.isDirectory(request.workingDirectory())) {
                return new Spawn.NotStarted(Spawn.Reason.NO_WORKING_DIRECTORY, 127, Errno.ENOENT,
                        "working directory does not exist: " + request.workingDirectory(), Optional.empty());
            }
            return notStarted(request, seq.spawnResult, seq.viaShell, lease != null);
        }
        return new Spawn.Started(new Child(pid, lease != null, request.stdio() != Stdio.INHERIT,
                pipes.parentIn(), pipes.parentOut(), pipes.parentErr()));
    }

    private static long spinOrDefault(String property, long defaultMicros) {
        try {
            return spinNanos(property, System.getProperty(property), defaultMicros);
        } catch (IllegalArgumentException invalid) {
            return defaultMicros * 1000L; // never used: the constructor refuses first
        }
    }

    private static String spinSettingsError() {
        try {
            spinNanos(SPIN_PROPERTY, System.getProperty(SPIN_PROPERTY), 0);
            return null;
        } catch (IllegalArgumentException invalid) {
            return invalid.getMessage();
        }
    }

    static long spinNanos(String property, String micros, long defaultMicros) {
        if (micros == null || micros.isBlank()) {
            return defaultMicros * 1000L;
        }
        try {
            long us = Long.parseLong(micros.strip());
            if (us < 0 || us > 100_000) {
                throw new NumberFormatException();
            }
            return us * 1000L;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(property + " must be microseconds from 0 to 100000, not '" + micros + "'");
        }
    }

    /** Runs {@code seq} on the taken spare, or on a fresh thread when there is none; returns that thread. */
    private static Thread startLaunchThread(LaunchSequence seq, SpareThreads pool, SpareThreads.Spare spare) {
        String name = "magus-sandbox-launch-" + THREADS.incrementAndGet();
        if (spare != null) {
            return pool.handOff(spare, seq, name);
        }
        // No spare ready (several spawns at once, or a caller with no_new_privs): a fresh thread.
        Thread t = new Thread(null, seq, name, LAUNCH_STACK);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** How many launch threads this process has started (spares handed off, or fresh). */
    static long launchThreadsStarted() {
        return THREADS.get();
    }

    private static boolean callerMayUseSpare() {
        return LibC.prctl(LibC.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 0;
    }

    private static SandboxException confinementFailed(Mode mode, SpawnRequest request, LaunchSequence seq) {
        String what = LaunchSequence.stepName(seq.failedStep) + " failed: " + Errno.name(seq.errno);
        String hint = seq.errno == Errno.E2BIG ? " (too many nested Landlock domains)" : "";
        Code code = mode == Mode.REQUIRED ? Code.MGS2012 : Code.MGS2004;
        return new SandboxException(Diagnostic.of(code,
                        "cannot confine the child: " + what + hint + "; it was not started",
                        request.executable().toString(), Operation.EXEC, Layer.KERNEL, Decision.SOURCE)
                .withDetail("step", LaunchSequence.stepName(seq.failedStep))
                .withDetail("errno", Errno.name(seq.errno)));
    }

    private static Spawn notStarted(SpawnRequest request, int errno, boolean viaShell, boolean confined) {
        Path exe = viaShell ? SHELL : request.executable();
        String suffix = viaShell ? " (running " + request.executable() + ", a script without #!)" : "";
        if (errno == Errno.ENOENT || errno == Errno.ENOTDIR) {
            return new Spawn.NotStarted(Spawn.Reason.NOT_FOUND, 127, errno,
                    "command not found: " + exe + suffix, Optional.empty());
        }
        if (errno == Errno.EACCES && confined && Files.isRegularFile(exe) && Files.isExecutable(exe)) {
            // A script's interpreter is exec'd too; when it is the one outside the rules, name it.
            Optional<Path> interpreter = interpreter(exe);
            String what = interpreter.map(i -> exe + " or its interpreter " + i + " is").orElse(exe + " is");
            Diagnostic d = Diagnostic.of(Code.MGS2007,
                    "exec denied by the kernel layer: " + what + " outside every exec rule" + suffix,
                    exe.toString(), Operation.EXEC, Layer.KERNEL, Decision.SOURCE);
            return new Spawn.NotStarted(Spawn.Reason.EXEC_DENIED, 126, errno, d.message(), Optional.of(d));
        }
        return new Spawn.NotStarted(Spawn.Reason.NOT_EXECUTABLE, 126, errno,
                "cannot execute " + exe + suffix + ": " + Errno.name(errno), Optional.empty());
    }

    /** The {@code #!} interpreter of a script, read by magus (which is not confined). */
    static Optional<Path> interpreter(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] head = in.readNBytes(256);
            if (head.length < 3 || head[0] != '#' || head[1] != '!') {
                return Optional.empty();
            }
            String line = new String(head, 2, head.length - 2, StandardCharsets.UTF_8).lines().findFirst().orElse("").strip();
            String first = line.split("\\s+", 2)[0];
            return first.startsWith("/") ? Optional.of(Path.of(first)) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static void check(int rc, String what) {
        if (rc != 0) {
            throw new IllegalStateException(what + " failed: " + Errno.name(rc));
        }
    }

    // --- warm-up -------------------------------------------------------------------------

    private void warm() {
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
            warmUnder(Confinement.off(), script, warmPool, fresh);
            int abi = LandlockProbe.kernel().abi();
            if (abi > 0) {
                try (CompiledRuleset all = CompiledRuleset.allowAll(abi)) {
                    Decision.Confine d = new Decision.Confine(Mode.BEST_EFFORT, all.abi(), List.of(), Optional.empty());
                    warmUnder(new Confinement.Kernel(d, all), script, warmPool, fresh);
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

    private void warmUnder(Confinement c, Path script, SpareThreads warmPool, SpareThreads fresh) throws IOException {
        Path cwd = Path.of("/");
        Path exe = Files.isExecutable(Path.of("/bin/true")) ? Path.of("/bin/true") : SHELL;
        List<String> noArgs = exe.equals(SHELL) ? List.of("-c", ":") : List.of();
        Map<String, String> env = Map.of("PATH", "/usr/bin:/bin");
        for (Stdio stdio : Stdio.values()) {
            if (stdio == Stdio.INHERIT) {
                continue; // same code path minus the dup2s; not worth writing to magus's terminal
            }
            warmPool.refill();
            warmPool.awaitStarted();
            drain(spawn(SpawnRequest.of(exe, noArgs, env, cwd).withStdio(stdio), c, warmPool));
        }
        if (script != null && Files.isExecutable(SHELL)) {
            warmPool.refill();
            warmPool.awaitStarted();
            drain(spawn(SpawnRequest.of(script, List.of(), env, cwd), c, warmPool));
        }
        warmPool.refill();
        warmPool.awaitStarted();
        drain(spawn(SpawnRequest.of(Path.of("/nonexistent/magus-warm-up"), List.of(), env, cwd), c, warmPool));
        drain(spawn(SpawnRequest.of(exe, noArgs, env, cwd), c, fresh));
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

    // --- native memory ---------------------------------------------------------------------

    /** argv, envp, paths and the spawn structures of one spawn, in one allocation. */
    static final class NativeArgs {
        final Memory memory;
        final Pointer pid;
        final Pointer fileActions;
        final Pointer attr;
        final Pointer sigDefault;
        final Pointer sigMask;
        final Pointer path;
        final Pointer cwd;
        final Pointer argv;
        final Pointer envp;
        final Pointer shellPath;
        final Pointer shellArgv;

        private NativeArgs(Memory memory, long[] offsets) {
            this.memory = memory;
            long base = Pointer.nativeValue(memory);
            this.pid = new Pointer(base + offsets[0]);
            this.fileActions = new Pointer(base + offsets[1]);
            this.attr = new Pointer(base + offsets[2]);
            this.sigDefault = new Pointer(base + offsets[3]);
            this.sigMask = new Pointer(base + offsets[4]);
            this.path = new Pointer(base + offsets[5]);
            this.cwd = new Pointer(base + offsets[6]);
            this.argv = new Pointer(base + offsets[7]);
            this.envp = new Pointer(base + offsets[8]);
            this.shellPath = new Pointer(base + offsets[9]);
            this.shellArgv = new Pointer(base + offsets[10]);
        }

        static NativeArgs build(SpawnRequest request, Path shell) {
            // Plain loops and arrays, no lambda or string concatenation: a process spawns too
            // rarely for this to be compiled, and the interpreter makes each of those costly.
            List<String> args = request.argv();
            int argc = args.size();
            byte[][] argv = new byte[argc][];
            for (int i = 0; i < argc; i++) {
                argv[i] = bytes(args.get(i));
            }
            Map<String, String> env = request.environment();
            int envc = env.size();
            byte[][] names = new byte[envc][];
            byte[][] values = new byte[envc][];
            int j = 0;
            for (Map.Entry<String, String> e : env.entrySet()) {
                names[j] = bytes(e.getKey());
                values[j] = bytes(e.getValue());
                j++;
            }
            byte[] path = bytes(request.executable().toString());
            byte[] cwd = bytes(request.workingDirectory().toString());
            byte[] shellPath = bytes(shell.toString());

            long off = 0;
            long[] o = new long[11];
            o[0] = off;
            off += 16;
            o[1] = off;
            off += LibC.FILE_ACTIONS_ALLOCATION;
            o[2] = off;
            off += LibC.SPAWNATTR_ALLOCATION;
            o[3] = off;
            off += LibC.SIGSET_SIZE;
            o[4] = off;
            off += LibC.SIGSET_SIZE;
            o[7] = off;
            off += 8L * (argc + 1);
            o[8] = off;
            off += 8L * (envc + 1);
            o[10] = off;
            off += 8L * (argc + 2);
            long strings = off;
            // Every string is followed by its NUL, which clear() has written.
            long total = strings + path.length + cwd.length + shellPath.length + 3;
            for (byte[] b : argv) {
                total += b.length + 1;
            }
            for (int i = 0; i < envc; i++) {
                total += names[i].length + values[i].length + 2;
            }
            Memory m = new Memory(total);
            m.clear();
            long base = Pointer.nativeValue(m);
            long s = strings;
            o[5] = s;
            s = put(m, s, path);
            o[6] = s;
            s = put(m, s, cwd);
            o[9] = s;
            s = put(m, s, shellPath);
            long[] argvAt = new long[argc];
            for (int i = 0; i < argc; i++) {
                argvAt[i] = s;
                s = put(m, s, argv[i]);
            }
            for (int i = 0; i < envc; i++) {
                m.setLong(o[8] + 8L * i, base + s);
                m.write(s, names[i], 0, names[i].length);
                m.setByte(s + names[i].length, (byte) '=');
                s = put(m, s + names[i].length + 1, values[i]);
            }
            m.setLong(o[8] + 8L * envc, 0);
            for (int i = 0; i < argc; i++) {
                m.setLong(o[7] + 8L * i, base + argvAt[i]);
            }
            m.setLong(o[7] + 8L * argc, 0);
            // /bin/sh <executable> <argv[1..]>: how execvp runs a script without #!.
            m.setLong(o[10], base + o[9]);
            m.setLong(o[10] + 8, base + o[5]);
            for (int i = 1; i < argc; i++) {
                m.setLong(o[10] + 8L * (i + 1), base + argvAt[i]);
            }
            m.setLong(o[10] + 8L * (argc + 1), 0);
            return new NativeArgs(m, o);
        }

        /** Writes {@code b} at {@code at}; returns where the next string starts, after its NUL. */
        private static long put(Memory m, long at, byte[] b) {
            m.write(at, b, 0, b.length);
            return at + b.length + 1;
        }

        void close() {
            memory.close();
        }

        /** {@code s} in UTF-8, without the NUL it gets in native memory. */
        private static byte[] bytes(String s) {
            if (s.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("NUL in an argument, path or environment entry");
            }
            return s.getBytes(StandardCharsets.UTF_8);
        }
    }

    /** The pipes of one spawn: magus's ends are kept, the child's are closed after the spawn. */
    static final class Pipes {
        int childIn = -1;
        int childOut = -1;
        int childErr = -1;
        int parentIn = -1;
        int parentOut = -1;
        int parentErr = -1;
        private boolean handedOver;

        static Pipes open(Stdio stdio) {
            Pipes p = new Pipes();
            if (stdio == Stdio.INHERIT) {
                return p;
            }
            try (Memory fds = new Memory(8)) {
                if (stdio == Stdio.PIPES) {
                    pipe(fds);
                    p.childIn = fds.getInt(0);
                    p.parentIn = fds.getInt(4);
                } else {
                    int devNull = LibC.open(nul("/dev/null"), LibC.O_RDONLY | LibC.O_CLOEXEC, 0);
                    if (devNull < 0) {
                        throw new IllegalStateException("open /dev/null: " + Errno.name(Native.getLastError()));
                    }
                    p.childIn = devNull;
                }
                pipe(fds);
                p.parentOut = fds.getInt(0);
                p.childOut = fds.getInt(4);
                pipe(fds);
                p.parentErr = fds.getInt(0);
                p.childErr = fds.getInt(4);
                return p;
            } catch (RuntimeException e) {
                p.closeChildEnds();
                p.closeParentEnds();
                throw e;
            }
        }

        private static void pipe(Memory fds) {
            if (LibC.pipe2(fds, LibC.O_CLOEXEC) != 0) {
                throw new IllegalStateException("pipe2 failed: " + Errno.name(Native.getLastError()));
            }
        }

        private static byte[] nul(String s) {
            return (s + "\0").getBytes(StandardCharsets.UTF_8);
        }

        /** The child's ends were closed by the launch sequence. */
        void childEndsClosed() {
            childIn = -1;
            childOut = -1;
            childErr = -1;
        }

        void closeChildEnds() {
            childIn = closeIfOpen(childIn);
            childOut = closeIfOpen(childOut);
            childErr = closeIfOpen(childErr);
        }

        void closeParentEnds() {
            if (!handedOver) {
                parentIn = closeIfOpen(parentIn);
                parentOut = closeIfOpen(parentOut);
                parentErr = closeIfOpen(parentErr);
            }
        }

        OutputStream parentIn() {
            handedOver = true;
            return parentIn >= 0 ? new FdStreams.Out(parentIn) : FdStreams.closedOutput();
        }

        InputStream parentOut() {
            handedOver = true;
            return parentOut >= 0 ? new FdStreams.In(parentOut) : FdStreams.emptyInput();
        }

        InputStream parentErr() {
            handedOver = true;
            return parentErr >= 0 ? new FdStreams.In(parentErr) : FdStreams.emptyInput();
        }

        private static int closeIfOpen(int fd) {
            if (fd >= 0) {
                LibC.close(fd);
            }
            return -1;
        }
    }
}
