package dev.magus.landlock.launch;

import com.sun.jna.Memory;
import dev.magus.landlock.sys.Errno;
import dev.magus.landlock.sys.LibC;
import dev.magus.landlock.sys.Natives;
import dev.magus.landlock.sys.Syscalls;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Optional;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A started child. Its output must be drained on ordinary threads while it runs, or it
 * blocks on a full pipe. Waiting and reading block: call them from threads that may block
 * (Reactor's {@code boundedElastic}, for example), never from an event loop.
 */
public final class Child implements AutoCloseable {
    private static final Syscalls SYS = Natives.syscalls();

    public static final int SIGHUP = 1;
    public static final int SIGINT = 2;
    public static final int SIGKILL = 9;
    public static final int SIGTERM = 15;

    private final int pid;
    private final String domainTag;
    private final boolean ownGroup;
    private final OutputStream stdin;
    private final InputStream stdout;
    private final InputStream stderr;
    // Guards reaping: the group may be signalled only while the leader is unreaped, since a
    // reaped pid (and so the group id) can be reused by an unrelated process.
    private final Object reapLock = new Object();
    private Exit exit;

    Child(int pid, String domainTag, boolean ownGroup, OutputStream stdin, InputStream stdout, InputStream stderr) {
        this.pid = pid;
        this.domainTag = domainTag;
        this.ownGroup = ownGroup;
        this.stdin = stdin;
        this.stdout = stdout;
        this.stderr = stderr;
    }

    public int pid() {
        return pid;
    }

    /** Whether a Landlock domain confines it. */
    public boolean confined() {
        return !domainTag.isEmpty();
    }

    /**
     * The creator's name in the audit record of the child's Landlock domain ({@link DomainTag}),
     * unique per spawn in this process; empty when the child is not confined.
     */
    public String domainTag() {
        return domainTag;
    }

    /**
     * Whether magus writes the child's standard input through a pipe ({@link #stdin()}), rather
     * than the child reading {@code /dev/null} or a descriptor of its own ({@link Stdio.InputFrom}).
     */
    public boolean stdinIsPipe() {
        return stdin instanceof FdStreams.Out;
    }

    /** Its standard input; close it to send end-of-file. */
    public OutputStream stdin() {
        return stdin;
    }

    public InputStream stdout() {
        return stdout;
    }

    public InputStream stderr() {
        return stderr;
    }

    /** Blocks until the child ends, reaps it, and says how it ended. Safe to call from several threads. */
    public Exit waitFor() {
        return waitFor(false);
    }

    /**
     * {@link #waitFor()}, but once the child has ended and before it is reaped, SIGKILLs what
     * it left running in its process group (background jobs, daemons that did not start a
     * group of their own), the way bazel's process-wrapper does. Only in that window is the
     * group id certainly still the child's: the unreaped leader holds it. Nothing is sent for
     * an {@link Stdio#INHERIT} child, whose group is magus's own.
     */
    public Exit waitForAndKillGroup() {
        return waitFor(true);
    }

    private Exit waitFor(boolean killGroup) {
        Memory siginfo = new Memory(LibC.SIGINFO_SIZE);
        while (true) {
            synchronized (reapLock) {
                if (exit != null) {
                    return exit;
                }
            }
            // Wait without reaping, so killGroup stays safe until we hold the lock.
            int r = SYS.waitid(LibC.P_PID, pid, siginfo, LibC.WEXITED | LibC.WNOWAIT);
            if (r == 0) {
                return reap(0, killGroup).orElseThrow();
            }
            int errno = SYS.errno();
            if (errno == Errno.EINTR) {
                continue;
            }
            synchronized (reapLock) {
                if (exit != null) {
                    return exit;
                }
            }
            throw new IllegalStateException("waitid(" + pid + ") failed: " + Errno.describe(errno));
        }
    }

    /** The exit if the child has ended (reaping it), else empty. Never blocks. */
    public Optional<Exit> poll() {
        return reap(LibC.WNOHANG, false);
    }

    private Optional<Exit> reap(int options, boolean killGroupFirst) {
        synchronized (reapLock) {
            if (exit != null) {
                return Optional.of(exit);
            }
            if (killGroupFirst && ownGroup) {
                // The leader is a zombie (waitid said so without reaping it): the group id is still its.
                SYS.kill(-pid, SIGKILL);
            }
            Memory status = new Memory(4);
            while (true) {
                int r = Launched.reap(pid, () -> SYS.waitpid(pid, status, options));
                if (r == pid) {
                    exit = Exit.fromWaitStatus(status.getInt(0));
                    return Optional.of(exit);
                }
                if (r == 0) {
                    return Optional.empty();
                }
                int errno = SYS.errno();
                if (errno != Errno.EINTR) {
                    throw new IllegalStateException("waitpid(" + pid + ") failed: " + Errno.describe(errno));
                }
            }
        }
    }

    /**
     * Sends {@code signal} to the child's whole process group (to the child alone for an
     * {@link Stdio#INHERIT} child, which shares magus's group). Does nothing once the child is
     * reaped, when the group id may already belong to someone else.
     *
     * @return whether a signal was sent
     */
    public boolean killGroup(int signal) {
        synchronized (reapLock) {
            if (exit != null) {
                return false;
            }
            return SYS.kill(ownGroup ? -pid : pid, signal) == 0;
        }
    }

    /**
     * The exit, waited for on {@code boundedElastic}. Cancelling the subscription kills the
     * child's group with SIGKILL.
     */
    public Mono<Exit> exit() {
        return Mono.fromCallable(this::waitFor)
                .subscribeOn(Schedulers.boundedElastic())
                .doOnCancel(() -> killGroup(SIGKILL));
    }

    /** Closes magus's ends of the pipes; does not signal or reap the child. */
    @Override
    public void close() {
        try {
            stdin.close();
        } catch (java.io.IOException ignored) {
            // a closed pipe end has nothing left to flush
        }
        try {
            stdout.close();
            stderr.close();
        } catch (java.io.IOException ignored) {
            // closing a read end cannot fail in a way worth reporting
        }
    }

    @Override
    public String toString() {
        return "Child[pid=" + pid + (confined() ? ", confined " + domainTag : "") + "]";
    }
}
