package dev.magus.landlock.launch;

import com.sun.jna.Pointer;
import dev.magus.events.SandboxException;
import dev.magus.landlock.abi.AbiRights;
import dev.magus.landlock.compile.CompiledRuleset;
import dev.magus.landlock.sys.Errno;
import dev.magus.landlock.sys.LibC;
import dev.magus.landlock.sys.Natives;
import dev.magus.landlock.sys.Syscalls;
import dev.magus.landlock.supervise.Supervisor;
import dev.magus.events.DetailKey;
import dev.magus.events.Mode;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Starts children confined while magus itself never is. Each confined spawn gets a
 * short-lived platform thread {@code magus-sandbox-launch-N} of its own that sets
 * no_new_privs, enters the policy's Landlock domain (a root child's capabilities cut too),
 * calls {@code posix_spawn} and ends, running nothing else, so no JVM thread ever keeps a
 * domain. The thread is a spare parked in advance ({@link SpareThreads}), or a fresh one when
 * none is ready; the caller waits for {@code posix_spawn}'s result only ({@link LaunchSpin}).
 * Everything the thread touches is built beforehand on the calling thread as native memory.
 * An unconfined spawn calls {@code posix_spawn} on the caller.
 *
 * <p>A confined JVM thread must never run anything else: threads it starts would inherit the
 * domain for good, and a class that fails to load there stays failed for every thread. Hence
 * the warm-up ({@link WarmUp}), which a one-shot process ({@link #oneShot()}) skips.
 */
public final class Launcher implements Spawner {
    private static final AtomicLong THREADS = new AtomicLong();
    private static final AtomicLong DOMAINS = new AtomicLong();
    static final long LAUNCH_STACK = 256 * 1024;
    private static volatile Launcher instance;
    private static volatile boolean oneShot;

    private final Syscalls sys;
    private final CapabilityDrop caps;
    private final SpareThreads spares;

    Launcher(boolean dropCapabilities) {
        this(dropCapabilities, null);
    }

    /** @param spares the pool of parked launch threads, or {@code null} for the process's shared one */
    Launcher(boolean dropCapabilities, SpareThreads spares) {
        this(dropCapabilities, spares, true);
    }

    /** @param warmUp whether to spawn {@link WarmUp}'s children, or only {@link WarmUp#withoutChildren()} */
    Launcher(boolean dropCapabilities, SpareThreads spares, boolean warmUp) {
        LaunchSpin.requireValid();
        this.sys = Natives.require();
        this.caps = dropCapabilities ? CapabilityDrop.forProcess() : CapabilityDrop.plan(false);
        WarmUp.run(this, warmUp);
        this.spares = spares != null ? spares : SpareThreads.shared();
    }

    /**
     * Before {@link #get()}: this process makes a spawn or two and ends (a CLI run), so its
     * launcher spawns no warm-up children (a dozen spawns). A server does not call this.
     */
    public static void oneShot() {
        oneShot = true;
    }

    /** The process's launcher, initialised (natives, capability plan, warm-up) on first use from an ordinary thread. */
    public static Launcher get() {
        Launcher l = instance;
        if (l == null) {
            synchronized (Launcher.class) {
                l = instance;
                if (l == null) {
                    l = new Launcher(true, null, !oneShot);
                    instance = l;
                }
            }
        }
        return l;
    }

    /**
     * A {@link Spawner} for the process's launcher that creates it at its first spawn, not
     * now: building a pipeline must not load the natives or run the warm-up, which a command
     * that never spawns (a check, a refusal) would pay for nothing. (Nothing in this class's
     * initialisation loads them either.)
     */
    public static Spawner deferred() {
        return Deferred.INSTANCE;
    }

    /** An enum, not a lambda: nothing to link on the first spawn. */
    private enum Deferred implements Spawner {
        INSTANCE;

        @Override
        public Spawn spawn(SpawnRequest request, Confinement confinement) {
            return get().spawn(request, confinement);
        }

        @Override
        public Spawn spawn(SpawnRequest request, Confinement confinement, Supervisor supervisor) {
            return get().spawn(request, confinement, supervisor);
        }

        @Override
        public Spawn spawn(SpawnRequest request, Confinement confinement, Supervisor supervisor, Placement placement) {
            return get().spawn(request, confinement, supervisor, placement);
        }

        @Override
        public void prepare() {
            get();
        }
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
    @Override
    public Spawn spawn(SpawnRequest request, Confinement confinement) {
        return spawn(request, confinement, spares, null, null);
    }

    /**
     * {@link #spawn(SpawnRequest, Confinement)} supervised: the child's user-notification
     * listener goes to {@code supervisor}, already running.
     *
     * @throws IllegalArgumentException for a confinement without a kernel domain (mode off, or
     *                                  best-effort without Landlock): the filter needs no_new_privs
     */
    @Override
    public Spawn spawn(SpawnRequest request, Confinement confinement, Supervisor supervisor) {
        if (!(confinement instanceof Confinement.Kernel)) {
            throw new IllegalArgumentException("only a child with a kernel domain can be supervised");
        }
        return spawn(request, confinement, spares, java.util.Objects.requireNonNull(supervisor, "supervisor"), null);
    }

    /**
     * {@link #spawn(SpawnRequest, Confinement, Supervisor)} with the child born in
     * {@code placement}'s cgroup: a confined child's launch thread moves itself there first
     * ({@link Placement}). An unconfined spawn, on the caller's thread, is never moved.
     */
    @Override
    public Spawn spawn(SpawnRequest request, Confinement confinement, Supervisor supervisor, Placement placement) {
        if (supervisor != null && !(confinement instanceof Confinement.Kernel)) {
            throw new IllegalArgumentException("only a child with a kernel domain can be supervised");
        }
        return spawn(request, confinement, spares, supervisor, placement);
    }

    /** {@link #spawn} with the spares of {@code pool}: the warm-up's own pools, or this launcher's. */
    Spawn spawn(SpawnRequest request, Confinement confinement, SpareThreads pool) {
        return spawn(request, confinement, pool, null, null);
    }

    private Spawn spawn(SpawnRequest request, Confinement confinement, SpareThreads pool, Supervisor supervisor,
                        Placement placement) {
        // A fresh thread inherits the caller's domain, no_new_privs and capabilities; a spare has
        // the process's (cut). Magus's own threads never set no_new_privs: a caller that has it
        // may be confined itself, and its child must inherit that, so it gets a fresh thread.
        // An unconfined spawn needs no thread of its own at all.
        boolean confined = confinement instanceof Confinement.Kernel;
        SpareThread spare = confined && pool.cut() == caps && callerMayUseSpare() ? pool.take() : null;
        CompiledRuleset.Lease lease = null;
        try {
            lease = confinement instanceof Confinement.Kernel k ? k.ruleset().lease() : null;
            SpareThread owned = spare;
            spare = null; // launch owns it from here: it hands it off or gives it back
            Pointer filter = confinement instanceof Confinement.Kernel k ? SeccompFilter.of(k.sockets()) : null;
            return launch(request, confinement.mode(), lease, new Filters(filter, supervisor, placement), pool, owned);
        } finally {
            if (spare != null) {
                pool.giveBack(spare);
            }
            if (lease != null) {
                lease.close();
            }
        }
    }

    /**
     * The seccomp filters of one spawn: the socket filter, and the supervisor's listener (null:
     * none); and the cgroup the launch thread moves into first (null: none).
     */
    private record Filters(Pointer sockets, Supervisor supervisor, Placement placement) {
    }

    private Spawn launch(SpawnRequest request, Mode mode, CompiledRuleset.Lease lease, Filters filter,
                         SpareThreads pool, SpareThread spare) {
        Launched.spawning();
        int started = 0;
        try {
            Spawn s = launchCounted(request, mode, lease, filter, pool, spare);
            started = s instanceof Spawn.Started st ? st.child().pid() : 0;
            return s;
        } finally {
            Launched.spawned(started);
        }
    }

    private Spawn launchCounted(SpawnRequest request, Mode mode, CompiledRuleset.Lease lease, Filters filter,
                                SpareThreads pool, SpareThread spare) {
        // Arguments first: a NUL in one is the caller's error, found before any descriptor exists.
        NativeArgs args = null;
        Pipes pipes;
        String tag = lease != null ? DomainTag.of(DOMAINS.incrementAndGet()) : "";
        try {
            args = NativeArgs.build(request, NativeArgs.SHELL);
            args.comm(tag);
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
        boolean handedOff = false;
        // Once the sequence runs, it releases the spawn structures and the child's pipe ends itself.
        boolean sequenceReleases = false;
        LaunchSequence seq = new LaunchSequence();
        try {
            args.initSpawnStructures(request.stdio(), pipes);
            prepare(seq, args, pipes, lease, filter);
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
                sequenceReleases = seq.awaitDone(LaunchSpin.NANOS, launchThread);
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
            if (seq.spawnerTid != 0) {
                // Before the caller can see the child end: its CLONE_PARENT children are that thread's.
                Launched.spawnedOn(seq.spawnerTid);
            }
            if (spare != null && !handedOff) {
                pool.giveBack(spare);
            }
            if (sequenceReleases) {
                pipes.childEndsClosed();
            } else {
                args.destroySpawnStructures();
                pipes.closeChildEnds();
            }
        }
        int pid = args.pid.getInt(0);
        if (seq.crash != null || seq.failedStep != LaunchSequence.STEP_NONE) {
            args.close();
            pipes.closeParentEnds();
            throw SpawnFailures.launchFailed(mode, request, seq);
        }
        if (seq.spawnResult != 0) {
            args.close();
            pipes.closeParentEnds();
            return SpawnFailures.notStarted(request, seq.spawnResult, seq.viaShell, lease != null);
        }
        args.close();
        return new Spawn.Started(new Child(pid, tag, request.stdio() != Stdio.INHERIT,
                pipes.parentIn(), pipes.parentOut(), pipes.parentErr()));
    }

    /** Gives {@code seq} everything it reads on the launch thread: fields only, no call back into magus. */
    private void prepare(LaunchSequence seq, NativeArgs args, Pipes pipes, CompiledRuleset.Lease lease,
                         Filters filter) {
        seq.confine = lease != null;
        seq.seccomp = lease != null ? filter.sockets() : null;
        if (lease != null && filter.supervisor() != null) {
            seq.notify = SeccompFilter.supervised();
            seq.listener = filter.supervisor().listener();
        }
        seq.rulesetFd = lease != null ? lease.fd() : -1;
        seq.cgroupThreads = lease != null && filter.placement() != null ? filter.placement().fd() : -1;
        seq.restrictFlags = lease != null ? AbiRights.restrictFlags(lease.abi()) : 0;
        seq.caps = caps;
        seq.comm = lease != null ? args.comm : null;
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
    }

    /** Runs {@code seq} on the taken spare, or on a fresh thread when there is none; returns that thread. */
    private static Thread startLaunchThread(LaunchSequence seq, SpareThreads pool, SpareThread spare) {
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

    private boolean callerMayUseSpare() {
        return sys.prctl(LibC.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 0;
    }

    /**
     * Whether a launch failed because a supervisor above this process holds the listener: the
     * kernel allows one per process tree and refuses a second ({@code EBUSY}), so a supervised
     * launch inside a supervised run fails there, before anything starts.
     */
    public static boolean listenerTaken(Throwable launchFailure) {
        if (!(launchFailure instanceof SandboxException e)) {
            return false;
        }
        java.util.Map<String, String> details = e.diagnostic().details();
        return LaunchSequence.stepName(LaunchSequence.STEP_LISTENER).equals(details.get(DetailKey.STEP.key()))
                && Errno.name(Errno.EBUSY).equals(details.get(DetailKey.ERRNO.key()));
    }
}
