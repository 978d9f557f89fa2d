package dev.magus.orchestrator.orphans;

import dev.magus.landlock.sys.Syscalls;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Survivors of a run's stray collection ({@link Collected#survivors}) fail the run, and are
 * then pursued: on a daemon thread, for at most {@link #LIMIT}, the run's strays are looked for
 * again ({@link Strays#strays}: by the run's id, its group, when they started) and each found is
 * SIGKILLed and reaped, until none is left and the run's group is empty. A fork loop that
 * outran the collection's two seconds is thus still ended, soon after the run has reported it.
 * Only what is the run's beyond doubt is pursued: a process left for another running run
 * (it may be either's) is that run's to kill at its end.
 */
final class Pursuit {
    /** How long the survivors of one run are pursued. */
    static final Duration LIMIT = Duration.ofSeconds(30);
    private static final int SIGKILL = 9;
    private static final int WNOHANG = 1;

    private Pursuit() {
    }

    /** Starts pursuing {@code runId}'s strays (and its {@code group}) in the background. */
    static void start(Syscalls sys, String runId, long group, Duration limit) {
        Thread t = new Thread(() -> pursue(sys, runId, group, limit), "magus-pursuit-" + runId);
        t.setDaemon(true);
        t.start();
    }

    private static void pursue(Syscalls sys, String runId, long group, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        try {
            while (System.nanoTime() < deadline) {
                List<Long> found = Strays.strays(sys, runId, group);
                if (found.isEmpty() && sys.kill(-(int) group, 0) != 0) {
                    return;
                }
                for (long pid : found) {
                    sys.kill((int) pid, SIGKILL);
                }
                for (long pid : found) {
                    sys.waitpid((int) pid, null, WNOHANG);
                }
                LockSupport.parkNanos(20_000_000);
            }
        } catch (RuntimeException | LinkageError e) {
            // nothing more can be done from here; the run has already failed for them
        }
    }
}
