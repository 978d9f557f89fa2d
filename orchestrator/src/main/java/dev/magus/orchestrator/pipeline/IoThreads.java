package dev.magus.orchestrator.pipeline;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * magus's own I/O threads, one pool per process, shared by every {@link dev.magus.orchestrator.Orchestrator}
 * whatever its {@link dev.magus.orchestrator.run.RunServices}: threads are the process's, and the
 * end of a run reads magus's children once per thread of magus ({@code /proc/PID/task/TID/children},
 * the subreaper's pursuit of strays), so a pool per owner would slow every run's ending by the
 * idle threads of all the others.
 */
public final class IoThreads {
    /**
     * The threads: where everything that blocks runs: each run's stages and wait, and one reader
     * per pipe. Not {@code boundedElastic}: a run holds its thread while its child lives, so with
     * a capped pool enough concurrent runs would leave their pipe readers queued behind them,
     * the children blocked on full pipes, and every run waiting for ever. Threads here live
     * exactly as long as the blocking work (idle ones go after a minute), so their number
     * follows the live children: about three each.
     */
    private static final ExecutorService POOL = Executors.newCachedThreadPool(IoThreads::ioThread);
    /** The pool as a scheduler. */
    static final Scheduler IO = Schedulers.fromExecutorService(POOL, "magus-io");
    /**
     * The same pool for a run's chain of stages ({@link RunStages}), whose cancellation must not
     * interrupt the thread: a stage that a signal overtakes finishes what it writes (a trail row,
     * a private temp dir) and hands nothing on; {@link #IO}'s tasks are interrupted when disposed.
     * Given as a plain {@code Executor}: Reactor would make an {@code ExecutorService} interrupting again.
     */
    static final Scheduler STAGES = Schedulers.fromExecutor(POOL::execute);
    private static final AtomicLong IO_THREADS = new AtomicLong();

    private IoThreads() {
    }

    private static Thread ioThread(Runnable r) {
        Thread t = new IoThread(r, "magus-io-" + IO_THREADS.incrementAndGet());
        t.setDaemon(true);
        return t;
    }

    /** Runs {@code work} on one of these threads. */
    public static void execute(Runnable work) {
        POOL.execute(work);
    }

    /** Whether the calling thread is one of these (a run's stages may then run on it, {@link RunStages#startHere}). */
    public static boolean onIoThread() {
        return Thread.currentThread() instanceof IoThread;
    }

    /** The pool's threads, told apart by their class rather than their name. */
    private static final class IoThread extends Thread {
        IoThread(Runnable r, String name) {
            super(r, name);
        }
    }
}
