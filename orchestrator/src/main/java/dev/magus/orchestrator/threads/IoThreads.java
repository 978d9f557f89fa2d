package dev.magus.orchestrator.threads;

import java.time.Duration;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * magus's own I/O threads: where everything that blocks runs: each run's stages and wait, and
 * one reader per pipe. One pool per owner of runs ({@link dev.magus.orchestrator.run.RunServices}),
 * shared by every orchestrator it builds, ended with it ({@link #close}).
 *
 * <p>Not {@code boundedElastic}: a run holds its thread while its child lives, so with a capped
 * pool enough concurrent runs would leave their pipe readers queued behind them, the children
 * blocked on full pipes, and every run waiting for ever. Threads here live as long as the
 * blocking work and then {@link #IDLE} more, so their number follows the live children (about
 * three each), and an owner that is never closed leaves no idle threads behind for long.
 */
public final class IoThreads implements AutoCloseable {
    /** How long an idle thread waits for more work before it ends. */
    static final Duration IDLE = Duration.ofSeconds(10);

    private final ThreadPoolExecutor pool;
    /**
     * The pool as Reactor's schedulers, made at the first run rather than with the pool: making
     * one loads Reactor, whose first logger fixes SLF4J's settings, and the command line sets
     * those (its {@code --log-file}) after the process's services are made.
     */
    private Scheduler io;
    private Scheduler stages;
    private final AtomicLong count = new AtomicLong();

    /** A pool with no thread yet: each is made when work finds none idle. */
    public IoThreads() {
        pool = new ThreadPoolExecutor(0, Integer.MAX_VALUE, IDLE.toMillis(), TimeUnit.MILLISECONDS,
                new SynchronousQueue<>(), this::thread);
    }

    private Thread thread(Runnable r) {
        Thread t = new IoThread(r, "magus-io-" + count.incrementAndGet(), this);
        t.setDaemon(true);
        return t;
    }

    /** The pool as a scheduler; its tasks are interrupted when disposed. */
    public synchronized Scheduler io() {
        if (io == null) {
            io = Schedulers.fromExecutorService(pool, "magus-io");
        }
        return io;
    }

    /**
     * The same pool for a run's chain of stages, whose cancellation must not interrupt the
     * thread: a stage that a signal overtakes finishes what it writes (a trail row, a private
     * temp dir) and hands nothing on.
     */
    public synchronized Scheduler stages() {
        if (stages == null) {
            // A plain Executor: Reactor would make an ExecutorService interrupting again.
            stages = Schedulers.fromExecutor(pool::execute);
        }
        return stages;
    }

    /** Runs {@code work} on one of these threads. */
    public void execute(Runnable work) {
        pool.execute(work);
    }

    /** Whether the calling thread is one of this pool's (a run's stages may then run on it). */
    public boolean onIoThread() {
        return Thread.currentThread() instanceof IoThread t && t.owner == this;
    }

    /** How many threads the pool has now, busy or idle. */
    public int size() {
        return pool.getPoolSize();
    }

    /**
     * Takes no more work; what runs finishes, and each thread ends when it has nothing left, at
     * once if idle.
     */
    @Override
    public void close() {
        pool.shutdown();
    }

    /** The pool's threads, told apart by their class and owner rather than their name. */
    private static final class IoThread extends Thread {
        private final IoThreads owner;

        IoThread(Runnable r, String name, IoThreads owner) {
            super(r, name);
            this.owner = owner;
        }
    }
}
