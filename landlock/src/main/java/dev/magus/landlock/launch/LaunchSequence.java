package dev.magus.landlock.launch;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import dev.magus.landlock.sys.Errno;
import dev.magus.landlock.sys.LibC;
import dev.magus.landlock.sys.Natives;
import dev.magus.landlock.sys.Syscalls;
import dev.magus.landlock.supervise.Listener;
import java.util.concurrent.locks.LockSupport;

/**
 * What runs on a launch thread, and nothing else: only direct-mapped native calls on
 * memory the parent built, primitive fields, {@code LockSupport.unpark} and
 * {@code Thread.yield}, no allocation of native memory, no class that was not loaded during
 * the warm-up. A domain, no_new_privs and the capability cut all apply
 * to this thread alone, which ends as soon as {@code posix_spawn} returns; a tool that uses
 * {@code PR_SET_PDEATHSIG} (as {@code bwrap --die-with-parent} does) therefore sees its
 * "parent" die at once, because that signal follows the spawning thread, not the process. In
 * mode off the sequence runs on the calling thread, so that signal follows the caller's thread
 * instead (a pooled worker may end long before the child, when the pool retires it).
 */
final class LaunchSequence implements Runnable {
    private static final Syscalls SYS = Natives.syscalls();

    static final int STEP_NONE = 0;
    static final int STEP_NO_NEW_PRIVS = 1;
    static final int STEP_BOUNDING = 2;
    static final int STEP_CAPSET = 3;
    static final int STEP_AMBIENT = 4;
    static final int STEP_RESTRICT = 5;
    static final int STEP_AFFINITY = 6;
    static final int STEP_DUMPABLE = 7;
    static final int STEP_SECCOMP = 8;
    static final int STEP_LISTENER = 9;
    /** {@code seccomp(2)}'s operation and flag for a filter with a user-notification listener. */
    private static final int SECCOMP_SET_MODE_FILTER = 1;
    private static final int SECCOMP_FILTER_FLAG_NEW_LISTENER = 1 << 3;
    /** What moves the writing thread into a cgroup ({@code cgroup.threads}: 0 is the caller). Built here. */
    private static final Memory SELF = self();
    /** Every CPU: the kernel keeps those the thread may use. Built here, never on a launch thread. */
    private static final Memory ALL_CPUS = allCpus();

    // Inputs, set on the parent before start().
    boolean confine;
    /** Set by a spare on itself: the capability cut is already made (or failed, see cutFailure). */
    boolean capsCut;
    /** A spare's failed cut, as {@link #cut}'s result: the sequence fails with it. */
    long cutFailure;
    int rulesetFd = -1;
    int restrictFlags;
    /** The run's socket filter, a {@code sock_fprog} ({@link SeccompFilter}); null: none. */
    Pointer seccomp;
    /** The user-notification filter of a supervised child ({@link SeccompFilter#supervised}); null: none. */
    Pointer notify;
    /** Where the listener goes, to the supervisor already running; set with {@link #notify}. */
    Listener listener;
    CapabilityDrop caps;
    /**
     * The name this thread takes before it creates the domain (null: keep its own). The kernel
     * logs the creator's name with the domain's audit record, and every launch thread is in
     * the one magus process, so the name is what ties a domain to its spawn.
     */
    Pointer comm;
    Pointer pidOut;
    Pointer path;
    Pointer fileActions;
    Pointer attr;
    Pointer argv;
    Pointer envp;
    Pointer shellPath;
    Pointer shellArgv;

    /**
     * The run's cgroup's {@code cgroup.threads}, open for writing (-1: none): this thread moves
     * itself there before the spawn, so the child is born in it and runs nothing of its own
     * outside it. Only a confined spawn's own thread, which ends right after, ever moves.
     */
    int cgroupThreads = -1;

    /** The child's ends of its pipes (-1: none), closed here right after the spawn. */
    int childIn = -1;
    int childOut = -1;
    int childErr = -1;
    /** The thread waiting in {@link #awaitDone}, woken when the outputs are written. */
    Thread waiter;
    /** The pool's refill thread, woken after the caller (null: no spare was used). */
    Thread refiller;
    /**
     * The spare's own CPU mask when the hand-off moved it to the caller's CPU (null: not
     * moved): given back before anything else, and the CPU given to the caller after the spawn.
     */
    Pointer ownMask;

    // Outputs, read on the parent once done is true (the volatile write publishes them).
    int failedStep = STEP_NONE;
    int errno;
    int spawnResult = -1;
    boolean viaShell;
    int appliedFlags;
    /** The id of the thread that called {@code posix_spawn} (0: none did, -1: unknown). */
    int spawnerTid;
    Throwable crash;
    private volatile boolean done;

    @Override
    public void run() {
        try {
            if (ownMask != null && !restoreAffinity()) {
                return;
            }
            if (confine && cgroupThreads >= 0) {
                // A failed move is never fatal: the child is born where magus is, no less confined,
                // and the caller, reading its /proc/PID/cgroup, ends the run by the subreaper's path.
                SYS.write(cgroupThreads, SELF, 1);
            }
            if (confine && !confineSelf()) {
                return;
            }
            // Before the child exists: a child it makes with CLONE_PARENT is this thread's.
            spawnerTid = tid();
            int rc = SYS.posix_spawn(pidOut, path, fileActions, attr, argv, envp);
            if (rc == Errno.ENOEXEC && shellArgv != null) {
                // A script without #!: run it with /bin/sh, as execvp and ProcessBuilder do.
                viaShell = true;
                rc = SYS.posix_spawn(pidOut, shellPath, fileActions, attr, shellArgv, envp);
            }
            spawnResult = rc;
        } catch (Throwable t) {
            crash = t;
        } finally {
            try {
                // Here rather than on the caller: the caller returns as soon as it is woken.
                release();
            } finally {
                done = true;
                LockSupport.unpark(waiter);
                if (ownMask != null) {
                    // The caller parked on this CPU: let it run before this thread's teardown.
                    Thread.yield();
                }
                LockSupport.unpark(refiller);
            }
        }
    }

    private static int tid() {
        try {
            return SYS.gettid();
        } catch (RuntimeException | LinkageError e) {
            return -1;
        }
    }

    private void release() {
        SYS.posix_spawn_file_actions_destroy(fileActions);
        SYS.posix_spawnattr_destroy(attr);
        closeIfOpen(childIn);
        closeIfOpen(childOut);
        closeIfOpen(childErr);
    }

    private static void closeIfOpen(int fd) {
        if (fd >= 0) {
            SYS.close(fd);
        }
    }

    /**
     * Blocks the caller until {@link #run()} has written its outputs: after {@code posix_spawn}
     * returned, not after the launch thread ended, whose exit (the JVM's thread teardown, a
     * few hundred microseconds) is no part of the spawn. The thread still ends right after,
     * running nothing else. Spins for at most {@code spinNanos} first (a parked caller is
     * woken later than a spinning one sees the flag), then parks; an interrupt does not end
     * the wait (the child is running by then) and is kept for the caller.
     *
     * @param launchThread the thread running this sequence: should it end without running it
     *                     (an error before a spare's loop), the wait ends too
     * @return whether the sequence ran (its outputs are written and it released what it owns);
     *         false when its thread ended without running it
     */
    boolean awaitDone(long spinNanos, Thread launchThread) {
        if (!done && spinNanos > 0) {
            long until = System.nanoTime() + spinNanos;
            while (!done && System.nanoTime() - until < 0) {
                Thread.onSpinWait();
            }
        }
        boolean interrupted = false;
        boolean ran = true;
        while (!done) {
            // Bounded, so that a launch thread that died without running this is noticed.
            LockSupport.parkNanos(this, LIVENESS_CHECK_NANOS);
            if (Thread.interrupted()) {
                interrupted = true;
            }
            if (!done && !launchThread.isAlive()) {
                ran = done;
                break;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return ran;
    }

    /** How often a waiting caller checks that its launch thread is still alive. */
    private static final long LIVENESS_CHECK_NANOS = 100_000_000L;

    /**
     * Gives this thread its own CPU mask back, so the child inherits that mask and not the one
     * CPU of the hand-off; every CPU (which the kernel narrows to those allowed) should the mask
     * have become invalid meanwhile (a cpuset shrunk). Should both fail, the spawn is refused
     * rather than started on the hand-off's CPU.
     */
    private boolean restoreAffinity() {
        if (SYS.sched_setaffinity(0, SpareThread.MASK_BYTES, ownMask) == 0
                || SYS.sched_setaffinity(0, SpareThread.MASK_BYTES, ALL_CPUS) == 0) {
            return true;
        }
        return fail(STEP_AFFINITY, SYS.errno());
    }

    private static Memory self() {
        Memory m = new Memory(1);
        m.setByte(0, (byte) '0');
        return m;
    }

    private static Memory allCpus() {
        Memory m = new Memory(SpareThread.MASK_BYTES);
        for (int i = 0; i < SpareThread.MASK_BYTES; i++) {
            m.setByte(i, (byte) 0xff);
        }
        return m;
    }

    private boolean confineSelf() {
        // magus not dumpable (the flag is the address space's: every thread of the process).
        // The child shares this thread's Landlock domain, and Landlock lets a process trace
        // another of its own domain: while this thread lives, a child could PTRACE_SEIZE it,
        // stop it and write magus's memory or make it clone outside the subreaper. Tracing a
        // process that is not dumpable needs CAP_SYS_PTRACE, which no confined child keeps
        // (Capabilities.KEPT). Set on every confined launch, before the domain, so that nothing
        // (a credential change resets the flag) can leave it set back (PtraceLaunchThreadInRunsTest).
        // A failure fails the launch: never confined and traceable.
        if (SYS.prctl(LibC.PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
            return fail(STEP_DUMPABLE, SYS.errno());
        }
        if (SYS.prctl(LibC.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
            return fail(STEP_NO_NEW_PRIVS, SYS.errno());
        }
        if (caps.active) {
            long r = capsCut ? cutFailure : cut(caps);
            if (r != 0) {
                return fail((int) (r >>> 32), (int) r);
            }
        }
        if (comm != null) {
            // Cannot fail for a readable pointer; a failure would only cost the tag, not confinement.
            SYS.prctl(LibC.PR_SET_NAME, Pointer.nativeValue(comm), 0, 0, 0);
        }
        int flags = restrictFlags;
        long r = SYS.landlockRestrictSelf(rulesetFd, flags);
        if (r == -Errno.EINVAL && flags != 0) {
            flags = 0;
            r = SYS.landlockRestrictSelf(rulesetFd, 0);
        }
        if (r < 0) {
            return fail(STEP_RESTRICT, (int) -r);
        }
        appliedFlags = flags;
        // Beside the domain, for the sockets Landlock cannot hold at this ABI. This thread's
        // alone (no TSYNC): the JVM's other threads never see it; the child inherits it.
        if (seccomp != null
                && SYS.prctl(LibC.PR_SET_SECCOMP, LibC.SECCOMP_MODE_FILTER, Pointer.nativeValue(seccomp), 0, 0) != 0) {
            return fail(STEP_SECCOMP, SYS.errno());
        }
        // Last, after the domain: the supervisor observes what Landlock enforces. Its listener
        // is handed over before the spawn, whose own exec is among the calls it answers.
        if (notify != null) {
            long fd = SYS.seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, Pointer.nativeValue(notify));
            if (fd < 0) {
                return fail(STEP_LISTENER, (int) -fd);
            }
            listener.listening((int) fd, SYS.gettid());
        }
        return true;
    }

    /**
     * Cuts the calling thread's capabilities to the plan: bounding set, then effective and
     * permitted (inheritable emptied), then the ambient set cleared.
     *
     * @return 0, or the failed step in the high 32 bits and its errno in the low ones
     */
    static long cut(CapabilityDrop caps) {
        int[] drop = caps.bounding;
        for (int i = 0; i < drop.length; i++) {
            if (SYS.prctl(LibC.PR_CAPBSET_DROP, drop[i], 0, 0, 0) != 0) {
                return failure(STEP_BOUNDING, SYS.errno());
            }
        }
        if (SYS.capset(caps.headerPointer, caps.dataPointer) != 0) {
            return failure(STEP_CAPSET, SYS.errno());
        }
        if (SYS.prctl(LibC.PR_CAP_AMBIENT, LibC.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0) {
            int e = SYS.errno();
            // Kernels before 4.3 have no ambient set, hence nothing to clear.
            if (e != Errno.EINVAL) {
                return failure(STEP_AMBIENT, e);
            }
        }
        return 0;
    }

    private static long failure(int step, int e) {
        return ((long) step << 32) | (e & 0xffffffffL);
    }

    private boolean fail(int step, int e) {
        failedStep = step;
        errno = e;
        return false;
    }

    static String stepName(int step) {
        switch (step) {
            case STEP_NO_NEW_PRIVS:
                return "prctl(PR_SET_NO_NEW_PRIVS)";
            case STEP_BOUNDING:
                return "prctl(PR_CAPBSET_DROP)";
            case STEP_CAPSET:
                return "capset";
            case STEP_AMBIENT:
                return "prctl(PR_CAP_AMBIENT_CLEAR_ALL)";
            case STEP_RESTRICT:
                return "landlock_restrict_self";
            case STEP_AFFINITY:
                return "sched_setaffinity";
            case STEP_DUMPABLE:
                return "prctl(PR_SET_DUMPABLE)";
            case STEP_SECCOMP:
                return "prctl(PR_SET_SECCOMP)";
            case STEP_LISTENER:
                return "seccomp(SECCOMP_FILTER_FLAG_NEW_LISTENER)";
            default:
                return "launch";
        }
    }
}
