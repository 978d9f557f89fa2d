package dev.magus.landlock.launch;

import dev.magus.landlock.sys.LibC;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Launch threads created ahead of time, so a spawn does not wait for a thread to be created
 * (most of the launcher's cost over a bare {@code posix_spawn}). A spare is a platform thread
 * that has never run anything: it makes the pool's capability cut on itself (the same for
 * every child of a root magus, {@link CapabilityDrop}), then parks, with no domain and without
 * no_new_privs, until one confined spawn hands it a {@link LaunchSequence}; it then runs that
 * sequence (no_new_privs, the domain, {@code posix_spawn}), and ends. A spare is used once, so
 * no thread ever runs anything after entering a domain.
 *
 * <p>Spares are created only by this pool's refill thread, which itself never runs a launch
 * sequence: a thread inherits its creator's Landlock domain, no_new_privs and capabilities, so
 * a replacement must never be started by a launch thread. A spawn that finds no spare ready
 * (several at once) creates a fresh launch thread as before.
 */
final class SpareThreads {
    /** System property: how many spares to keep parked (0 turns the pool off). */
    static final String PROPERTY = "magus.launch.spares";
    static final int DEFAULT_CAPACITY = 2;
    private static final AtomicLong SPARES = new AtomicLong();
    private static volatile SpareThreads shared;

    private final int capacity;
    private final CapabilityDrop cut;
    private final ArrayBlockingQueue<Spare> ready;
    private final Thread refiller;
    private final AtomicLong handedOff = new AtomicLong();
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
     * Takes a spare out of the pool and wakes it, so it is running (spinning for its work,
     * {@link Spare#run()}) by the time the caller has built the spawn, instead of being woken
     * then. The caller must {@link #handOff} or {@link #giveBack} it.
     *
     * @return the woken spare, or {@code null} when none is ready
     */
    Spare take() {
        Spare s = ready.poll();
        if (s != null) {
            LockSupport.unpark(s.thread);
        }
        return s;
    }

    /** A spare taken but not used (the spawn failed before its hand-off): parked again, or ended. */
    void giveBack(Spare s) {
        if (closed || !ready.offer(s)) {
            s.retire();
        }
    }

    /**
     * Hands {@code seq} to a spare from {@link #take()}, which runs it and ends.
     *
     * @return the thread now running {@code seq}
     */
    Thread handOff(Spare s, LaunchSequence seq, String name) {
        // Java-level name only (the native name of another thread cannot be changed): a thread
        // dump shows it as the launch thread it now is.
        s.thread.setName(name);
        s.work = seq;
        LockSupport.unpark(s.thread);
        handedOff.incrementAndGet();
        return s.thread;
    }

    /** Creates spares on the calling thread until the pool is full. The caller must be unconfined. */
    void refill() {
        while (!closed && ready.size() < capacity) {
            Spare s = new Spare(cut, Launcher.SPARE_SPIN_NANOS);
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

    /** Ends the parked spares and the refill thread without running anything on them. */
    void close() {
        closed = true;
        for (Spare s; (s = ready.poll()) != null; ) {
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
    List<Spare> parked() {
        return new ArrayList<>(ready);
    }

    long handedOff() {
        return handedOff.get();
    }

    long created() {
        return created.get();
    }

    Thread refiller() {
        return refiller;
    }

    /**
     * One spare. Its {@link #run()} is what a launch thread runs when it came from the pool:
     * after the sequence returns (confined), it returns at once, touching no new class.
     */
    static final class Spare implements Runnable {
        static final LaunchSequence RETIRE = new LaunchSequence();
        /** How long a woken spare spins for its work before parking again (see {@link Launcher#SPARE_SPIN_NANOS}). */
        private final long spinNanos;
        private final CapabilityDrop cut;
        /** {@link LaunchSequence#cut}'s result on this thread, published by the write of {@link #tid}. */
        long cutResult;

        volatile LaunchSequence work;
        volatile int tid;
        Thread thread;

        Spare(CapabilityDrop cut, long spinNanos) {
            this.cut = cut;
            this.spinNanos = spinNanos;
        }

        /** Ends this parked spare without running anything on it. */
        void retire() {
            work = RETIRE;
            LockSupport.unpark(thread);
        }

        @Override
        public void run() {
            if (cut.active) {
                cutResult = LaunchSequence.cut(cut);
            }
            tid = LibC.gettid();
            LaunchSequence s;
            while ((s = work) == null) {
                LockSupport.park(this);
                // An interrupt would make park return at once, forever: clear it (still unconfined here).
                Thread.interrupted();
                // Woken by take(): the work follows within microseconds; spinning for it saves
                // a second wake-up, which costs a hundred microseconds or more on a VM.
                long until = System.nanoTime() + spinNanos;
                while (work == null && System.nanoTime() - until < 0) {
                    Thread.onSpinWait();
                }
            }
            if (s != RETIRE) {
                s.capsCut = cut.active;
                s.cutFailure = cutResult;
                s.run();
            }
        }
    }
}
