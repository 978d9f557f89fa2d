package dev.magus.landlock.launch;

import com.sun.jna.Memory;
import dev.magus.landlock.sys.Natives;
import dev.magus.landlock.sys.Syscalls;
import java.util.concurrent.locks.LockSupport;

/**
 * One spare launch thread of {@link SpareThreads}: makes the pool's capability cut on itself,
 * publishes its thread id, parks until a spawn hands it a {@link LaunchSequence}, runs it and
 * ends. Its {@link #run()} is what a launch thread runs when it came from the pool: after the
 * sequence returns (confined), it returns at once, touching no new class.
 */
final class SpareThread implements Runnable {
    private static final Syscalls SYS = Natives.syscalls();

    static final LaunchSequence RETIRE = new LaunchSequence();
    /** A CPU mask's size in bytes: 1 024 CPUs, glibc's {@code cpu_set_t}. */
    static final int MASK_BYTES = 128;
    private final CapabilityDrop cut;
    /** The spare's CPU mask, read by the hand-off just before the move, given back before its spawn. */
    final Memory ownMask = new Memory(MASK_BYTES);
    /** One CPU: where the caller runs at the hand-off. */
    private final Memory oneCpu = new Memory(MASK_BYTES);
    /** {@link LaunchSequence#cut}'s result on this thread, published by the write of {@link #tid}. */
    long cutResult;

    volatile LaunchSequence work;
    volatile int tid;
    Thread thread;

    SpareThread(CapabilityDrop cut) {
        this.cut = cut;
    }

    /**
     * Restricts this parked spare to {@code cpu} (on the handing-off thread), after reading
     * its mask into {@link #ownMask}: its mask now, not when it started, since the process's
     * may have been narrowed meanwhile ({@code taskset -a}, a cpuset). Not moved when it
     * has not started yet, when {@code cpu} is not one it may use or is its only one, or
     * when its mask does not fit {@value #MASK_BYTES} bytes (more than 1 024 CPUs).
     *
     * @return whether it was moved; when not, its mask is untouched
     */
    boolean moveTo(int cpu) {
        if (tid == 0 || cpu < 0 || cpu >= MASK_BYTES * 8
                || SYS.sched_getaffinity(tid, MASK_BYTES, ownMask) != 0
                || (ownMask.getByte(cpu / 8) & (1 << (cpu % 8))) == 0
                || cpuCount(ownMask) < 2) {
            return false;
        }
        oneCpu.clear(MASK_BYTES);
        oneCpu.setByte(cpu / 8, (byte) (1 << (cpu % 8)));
        return SYS.sched_setaffinity(tid, MASK_BYTES, oneCpu) == 0;
    }

    static int cpuCount(Memory mask) {
        int n = 0;
        for (long i = 0; i < MASK_BYTES; i += Long.BYTES) {
            n += Long.bitCount(mask.getLong(i));
        }
        return n;
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
        tid = SYS.gettid();
        LaunchSequence s;
        while ((s = work) == null) {
            LockSupport.park(this);
            // An interrupt would make park return at once, forever: clear it (still unconfined here).
            Thread.interrupted();
        }
        if (s != RETIRE) {
            s.capsCut = cut.active;
            s.cutFailure = cutResult;
            s.run();
        }
    }
}
