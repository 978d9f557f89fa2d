package dev.magus.landlock.launch;

import dev.magus.landlock.sys.Natives;
import dev.magus.landlock.sys.Syscalls;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Launch threads created ahead of time, so a spawn does not wait for a thread to be created.
 * A spare is a platform thread that has never run anything: it makes the pool's capability cut
 * on itself ({@link CapabilityDrop}), then parks, with no domain and without no_new_privs,
 * until one confined spawn hands it a {@link LaunchSequence}; it runs that and ends. A spare is
 * used once, so no thread ever runs anything after entering a domain.
 *
 * <p>The hand-off moves the spare to the caller's CPU before waking it (a wake-up on an idle
 * virtual CPU is slow); the spare restores its mask before {@code posix_spawn}, so the child
 * inherits the mask it would have had. Spares are created only by this pool's refill thread,
 * never by a launch thread: a thread inherits its creator's domain, no_new_privs and capabilities.
 */
final class SpareThreads {
    private static final Syscalls SYS = Natives.syscalls();

    /** System property: how many spares to keep parked (0 turns the pool off). */
    static final String PROPERTY = "magus.launch.spares";
    static final int DEFAULT_CAPACITY = 2;
    private static final AtomicLong SPARES = new AtomicLong();
    private static volatile SpareThreads shared;

    private final int capacity;
    private final CapabilityDrop cut;
    private final ArrayBlockingQueue<SpareThread> ready;
    private final Thread refiller;
    private final AtomicLong handedOff = new AtomicLong();
    private final AtomicLong moved = new AtomicLong();
    private final AtomicLong created = new AtomicLong();
    private volatile boolean closed;

    /**
     * @param capacity   how many spares to keep parked
     * @param autoRefill whether a refill thread replaces each spare handed off (tests turn it
     *                   off to make the pool run empty on purpose, then call {@link #refill()})
     */
    SpareThreads(int capacity, boolean autoRefill) {
        if (capacity < 0) {
            throw new IllegalArgumentException("spare launch threads: " + capacity);
        }
        this.capacity = capacity;
        // The process's plan: only a launcher with this same plan uses these spares.
        this.cut = CapabilityDrop.forProcess();
        this.ready = new ArrayBlockingQueue<>(Math.max(1, capacity));
        if (autoRefill && capacity > 0) {
            refiller = new Thread(null, this::refillLoop, "magus-sandbox-spares", 0, false);
            refiller.setDaemon(true);
        } else {
            refiller = null;
        }
    }

    /** The process's pool, sized by {@value #PROPERTY}; its refill thread starts on first use. */
    static SpareThreads shared() {
        SpareThreads s = shared;
        if (s == null) {
            synchronized (SpareThreads.class) {
                s = shared;
                if (s == null) {
                    s = new SpareThreads(configuredCapacity(), true);
                    s.start();
                    shared = s;
                }
            }
        }
        return s;
    }

    static int configuredCapacity() {
        String v = System.getProperty(PROPERTY);
        if (v == null || v.isBlank()) {
            return DEFAULT_CAPACITY;
        }
        try {
            int n = Integer.parseInt(v.strip());
            if (n < 0 || n > 64) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(PROPERTY + " must be a number of threads from 0 to 64, not '" + v + "'");
        }
    }

    /** Starts the refill thread, which fills the pool at once and after every hand-off. */
    void start() {
        if (refiller != null && refiller.getState() == Thread.State.NEW) {
            refiller.start();
        }
    }

    /**
     * Takes a spare out of the pool, still parked. The caller must {@link #handOff} or
     * {@link #giveBack} it.
     *
     * @return the spare, or {@code null} when none is ready
     */
    SpareThread take() {
        return ready.poll();
    }

    /** A spare taken but not used (the spawn failed before its hand-off): parked again, or ended. */
    void giveBack(SpareThread s) {
        if (closed || !ready.offer(s)) {
            s.retire();
        }
    }

    /**
     * Hands {@code seq} to a spare from {@link #take()}, which runs it and ends. The spare is
     * first moved to the CPU the caller runs on (best effort: the caller may move meanwhile), so
     * that the caller's park gives it that CPU; see {@link SpareThread#moveTo}.
     *
     * @return the thread now running {@code seq}
     */
    Thread handOff(SpareThread s, LaunchSequence seq, String name) {
        // Java-level name only (the native name of another thread cannot be changed): a thread
        // dump shows it as the launch thread it now is.
        s.thread.setName(name);
        if (s.moveTo(SYS.sched_getcpu())) {
            seq.ownMask = s.ownMask;
            moved.incrementAndGet();
        }
        s.work = seq;
        LockSupport.unpark(s.thread);
        handedOff.incrementAndGet();
        return s.thread;
    }

    /** Creates spares on the calling thread until the pool is full. The caller must be unconfined. */
    void refill() {
        while (!closed && ready.size() < capacity) {
            SpareThread s = new SpareThread(cut);
            Thread t = new Thread(null, s, "magus-sandbox-spare-" + SPARES.incrementAndGet(), Launcher.LAUNCH_STACK, false);
            t.setDaemon(true);
            s.thread = t;
            t.start();
            created.incrementAndGet();
            // A spare given back meanwhile may have filled the pool: then this one is not needed.
            if (!ready.offer(s)) {
                s.retire();
            }
        }
    }

    private void refillLoop() {
        while (!closed) {
            try {
                refill();
            } catch (RuntimeException | OutOfMemoryError e) {
                // Thread creation failed (limits reached): spawns create their own thread, which
                // reports the failure to the caller; try again at the next hand-off.
            }
            LockSupport.park(this);
        }
    }

    /**
     * Waits (at most a second) until every parked spare has published its thread id, which a
     * hand-off needs to move it; for the warm-up and tests, which must take the moved path. The
     * refill thread does not wait: it would hold a CPU while the child it follows starts.
     */
    void awaitStarted() {
        long until = System.nanoTime() + 1_000_000_000L;
        for (SpareThread s : ready) {
            while (s.tid == 0 && s.thread.isAlive() && System.nanoTime() - until < 0) {
                LockSupport.parkNanos(50_000);
            }
        }
    }

    /** Ends the parked spares and the refill thread without running anything on them. */
    void close() {
        closed = true;
        for (SpareThread s; (s = ready.poll()) != null; ) {
            s.retire();
        }
        if (refiller != null) {
            LockSupport.unpark(refiller);
        }
    }

    int capacity() {
        return capacity;
    }

    /** The capability cut the spares make on themselves. */
    CapabilityDrop cut() {
        return cut;
    }

    /** The spares parked now (for tests: their threads and native thread ids). */
    List<SpareThread> parked() {
        return new ArrayList<>(ready);
    }

    long handedOff() {
        return handedOff.get();
    }

    /** How many hand-offs moved their spare to the caller's CPU. */
    long movedToCaller() {
        return moved.get();
    }

    long created() {
        return created.get();
    }

    Thread refiller() {
        return refiller;
    }
}
