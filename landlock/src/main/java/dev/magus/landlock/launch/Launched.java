package dev.magus.landlock.launch;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
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
    /**
     * The threads of this process that called {@code posix_spawn} for the launcher (a launch
     * thread, or the caller in mode off), by thread id, each with the number of its latest
     * registration; kept until a check sees the thread gone ({@link #spawnerGone}).
     */
    private static final Map<Integer, Long> SPAWNERS = new HashMap<>();
    private static long spawns;
    /** A spawn whose thread id could not be read: no list of spawners is complete any more. */
    private static boolean spawnerUnknown;

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
     * Notes that thread {@code tid} of this process called {@code posix_spawn} (0 or less: its
     * id is unknown). A child of a run's leader made with {@code CLONE_PARENT} is a child of that
     * thread, not of the leader's parent process as a whole: whoever reads magus's children by
     * thread must read this thread's list too, until the thread is gone (its children are then
     * handed to another thread of magus by the kernel).
     */
    static void spawnedOn(int tid) {
        synchronized (LOCK) {
            if (tid <= 0) {
                spawnerUnknown = true;
            } else {
                SPAWNERS.put(tid, ++spawns);
            }
        }
    }

    /**
     * The threads noted by {@link #spawnedOn} and not yet seen gone, as pairs (thread id, its
     * registration) in one array; null when a spawn's thread id was unknown.
     */
    public static long[] spawners() {
        synchronized (LOCK) {
            if (spawnerUnknown) {
                return null;
            }
            long[] out = new long[SPAWNERS.size() * 2];
            int i = 0;
            for (Map.Entry<Integer, Long> e : SPAWNERS.entrySet()) {
                out[i++] = e.getKey();
                out[i++] = e.getValue();
            }
            return out;
        }
    }

    /**
     * Forgets spawner {@code tid} seen gone, unless it was noted again since registration
     * {@code registration} (a new thread that took its id and spawned).
     */
    public static void spawnerGone(long tid, long registration) {
        synchronized (LOCK) {
            SPAWNERS.remove((int) tid, registration);
        }
    }

    /**
     * Reaps {@code pid} with {@code waitpid} (which must not block for long: the child has
     * ended, or the call says {@code WNOHANG}) and, when it returns {@code pid}, unregisters it,
     * both under the one lock that {@link #owns} and {@link #mayTouch} take. The kernel may hand
     * a reaped pid to a new process at once, a child of magus among them (a confined process's
     * {@code CLONE_PARENT} child, a stray re-parented to the subreaper); had the pid stayed
     * registered after the reap, a check between the two would have vouched for that stranger
     * as the launcher's own. Any check that saw the new process in
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
     * Runs {@code action} on {@code pid} only while it is certainly not one the launcher started
     * and still owns ({@link #mayTouch}), holding the register's lock throughout, so that no
     * launcher child can be reaped, and its pid handed on, between the check and the action; the
     * action must be short and must itself confirm, by a read made inside it (the process's start
     * time, say), that {@code pid} is still the process the caller saw. Reaping a stranger's
     * zombie is such an action (a stat read before the check could
     * describe a launcher child reaped since, whose pid a new one of its children then held).
     *
     * @return what {@code action} returned, or false when it did not run
     */
    public static boolean whileStranger(long pid, BooleanSupplier action) {
        synchronized (LOCK) {
            return inFlight == 0 && !LIVE.contains((int) pid) && action.getAsBoolean();
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
