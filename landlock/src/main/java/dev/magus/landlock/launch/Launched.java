package dev.magus.landlock.launch;

import java.util.HashSet;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * The children this process's {@link Launcher} started and has not reaped yet, so that code
 * that reaps or kills children it did not start (magus, the subreaper, collecting a run's
 * strays) never takes one of them: a {@link Child}'s exit status is read by its own
 * {@code waitpid}, and a stolen one would be lost.
 *
 * <p>A pid joins the set right after {@code posix_spawn} returns it, and a spawn counts as
 * in flight until then; {@link #mayTouch} says no while any is, so a child that is already a
 * zombie before it is registered is never mistaken for a stranger. It leaves when its
 * {@link Child} reaps it, in the same step as the {@code waitpid} ({@link #reap}): only then
 * can the kernel hand the pid to another process.
 */
public final class Launched {
    private static final Object LOCK = new Object();
    private static final Set<Integer> LIVE = new HashSet<>();
    private static int inFlight;

    private Launched() {
    }

    static void spawning() {
        synchronized (LOCK) {
            inFlight++;
        }
    }

    /** The spawn begun with {@link #spawning} has ended; {@code pid} is its child, or 0 when none started. */
    static void spawned(int pid) {
        synchronized (LOCK) {
            inFlight--;
            if (pid > 0) {
                LIVE.add(pid);
            }
        }
    }

    /**
     * Reaps {@code pid} with {@code waitpid} (which must not block for long: the child has
     * ended, or the call says {@code WNOHANG}) and, when it returns {@code pid}, unregisters it,
     * both under the one lock that {@link #owns} and {@link #mayTouch} take. The kernel may hand
     * a reaped pid to a new process at once, a child of magus among them (a confined process's
     * {@code CLONE_PARENT} child, a stray re-parented to the subreaper); had the pid stayed
     * registered after the reap, a check between the two would have vouched for that stranger
     * as the launcher's own (security review, issue 15). Any check that saw the new process in
     * {@code /proc} did so after the reap, so it takes the lock after this method released it;
     * a caller must therefore ask {@link #owns} or {@link #mayTouch} after its last read of
     * {@code /proc}, never rely on an answer given before a later read.
     *
     * @return what {@code waitpid} returned
     */
    static int reap(int pid, IntSupplier waitpid) {
        synchronized (LOCK) {
            int r = waitpid.getAsInt();
            if (r == pid) {
                LIVE.remove(pid);
            }
            return r;
        }
    }

    /**
     * Whether {@code pid}, a child of this process that exists now, is certainly not one the
     * launcher started and still owns: not registered, and no spawn under way that could be
     * about to register it.
     */
    public static boolean mayTouch(long pid) {
        synchronized (LOCK) {
            return inFlight == 0 && !LIVE.contains((int) pid);
        }
    }

    /**
     * Whether {@code pid} is a child the launcher started and has not reaped: registered. A
     * spawn in flight registers nothing yet, so its child counts as not owned (the caller then
     * does the slow, careful thing).
     */
    public static boolean owns(long pid) {
        synchronized (LOCK) {
            return LIVE.contains((int) pid);
        }
    }
}
