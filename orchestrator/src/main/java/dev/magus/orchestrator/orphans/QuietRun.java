package dev.magus.orchestrator.orphans;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.function.LongPredicate;

/**
 * Whether a run provably started no process but its own child, so that the end of the run
 * needs no pass over {@code /proc} for strays (issue 15: that pass was the largest part of the
 * server's CPU per run, one {@code /proc/PID/stat} read per process on the host).
 *
 * <p>The kernel hands out pids cyclically: each new task (process or thread) gets the first
 * free pid after the last one given, and {@code /proc/loadavg}'s fifth field is that last pid
 * in this process's pid namespace (a task in a nested namespace has a pid here too). So when
 * the last pid given is the child's own {@code P}, or each pid after {@code P} up to the last
 * is a live thread of magus itself (the launcher's spare threads, the I/O pool), no process was
 * born since the child, and the child cannot have left a descendant anywhere. That holds only
 * while the pids have not gone round the whole space since the child's birth, which is counted,
 * not guessed: {@code /proc/stat}'s {@code processes} counts every task the host ever made, so
 * its rise between just before the spawn and now bounds the pids handed out meanwhile, and a
 * lap needs at least {@code pid_max - 300 - 3 × (tasks then + tasks made since)} of them (a
 * live task holds at most three pids: its own, a group's and a session's). In every other case
 * (a pid gap, a thread that already ended, a count that does not fit, anything that cannot be
 * read) the pass is made as before.
 *
 * <p>What this cannot see: a task made with {@code clone3}'s {@code set_tid} or after a write
 * to {@code ns_last_pid}, both of which need {@code CAP_SYS_ADMIN}, which a confined child no
 * longer has (the launcher's capability cut).
 */
final class QuietRun {
    /** Pids a lap skips at the bottom of the space ({@code RESERVED_PIDS}). */
    static final long RESERVED_PIDS = 300;
    /** At most this many pids after the child's are looked up as magus's own threads. */
    static final int MAX_GAP = 16;

    private static final Path LOADAVG = Path.of("/proc/loadavg");
    private static final Path STAT = Path.of("/proc/stat");
    private static final Path OWN_TASKS = Path.of("/proc/self/task");
    private static final byte[] PROCESSES = "\nprocesses ".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    /** {@code /proc/sys/kernel/pid_max}, read once; -1 when it cannot be. */
    private static final long PID_MAX = readPidMax();

    private QuietRun() {
    }

    /**
     * What the host's counters tell: tasks alive ({@code /proc/loadavg}), the last pid given
     * (same), and tasks made since boot ({@code /proc/stat}); -1 for what cannot be read.
     */
    record Pids(long tasks, long last, long forks) {
        static final Pids UNKNOWN = new Pids(-1, -1, -1);

        boolean known() {
            return tasks >= 0 && last > 0 && forks >= 0;
        }
    }

    /**
     * The counters just before a spawn: the fork count first, so that a task made between the
     * two reads is counted among those made since rather than missed by both.
     */
    static Pids beforeSpawn() {
        try {
            long forks = forks(Files.readAllBytes(STAT));
            Pids load = parse(Files.readAllBytes(LOADAVG));
            return new Pids(load.tasks(), load.last(), forks);
        } catch (IOException | RuntimeException e) {
            return Pids.UNKNOWN;
        }
    }

    /** The counters now: the last pid first, so that every task made up to it is in the fork count read after. */
    static Pids now() {
        try {
            Pids load = parse(Files.readAllBytes(LOADAVG));
            return new Pids(load.tasks(), load.last(), forks(Files.readAllBytes(STAT)));
        } catch (IOException | RuntimeException e) {
            return Pids.UNKNOWN;
        }
    }

    /** The fourth field's denominator and the fifth field of a {@code /proc/loadavg} line ("0.1 0.2 0.3 4/145 23201"). */
    static Pids parse(byte[] line) {
        int field = 0;
        int i = 0;
        while (i < line.length && field < 3) {
            if (line[i++] == ' ') {
                field++;
            }
        }
        while (i < line.length && line[i] != '/') {
            i++;
        }
        i++;
        long tasks = 0;
        int start = i;
        while (i < line.length && line[i] >= '0' && line[i] <= '9' && i - start < 12) {
            tasks = tasks * 10 + (line[i++] - '0');
        }
        if (i == start || i >= line.length || line[i] != ' ') {
            return Pids.UNKNOWN;
        }
        i++;
        long last = 0;
        start = i;
        while (i < line.length && line[i] >= '0' && line[i] <= '9' && i - start < 12) {
            last = last * 10 + (line[i++] - '0');
        }
        if (i == start || (i < line.length && line[i] != '\n' && line[i] != ' ')) {
            return Pids.UNKNOWN;
        }
        return new Pids(tasks, last, -1);
    }

    /** The {@code processes} line of {@code /proc/stat}: tasks made since boot; -1 when there is none. */
    static long forks(byte[] stat) {
        outer:
        for (int at = 0; at + PROCESSES.length <= stat.length; at++) {
            for (int k = 0; k < PROCESSES.length; k++) {
                if (stat[at + k] != PROCESSES[k]) {
                    continue outer;
                }
            }
            int i = at + PROCESSES.length;
            int start = i;
            long v = 0;
            while (i < stat.length && stat[i] >= '0' && stat[i] <= '9' && i - start < 19) {
                v = v * 10 + (stat[i++] - '0');
            }
            return i > start && i < stat.length && stat[i] == '\n' ? v : -1;
        }
        return -1;
    }

    /**
     * The decision, pure: whether no process but magus's own threads was born since the child.
     *
     * @param child     the child's pid
     * @param before    the counters read just before the spawn
     * @param now       the counters now, after the child was reaped
     * @param pidMax    {@code pid_max}
     * @param ownThread whether a pid is a live thread of this process
     */
    static boolean quiet(long child, Pids before, Pids now, long pidMax, LongPredicate ownThread) {
        if (child <= 0 || !before.known() || !now.known() || pidMax <= 0) {
            return false;
        }
        long made = now.forks() - before.forks();
        long lap = pidMax - RESERVED_PIDS - 3 * (before.tasks() + Math.max(made, 0));
        if (made < 0 || lap <= 0 || made >= lap) {
            return false;
        }
        long last = now.last();
        if (last < child || last - child > MAX_GAP) {
            return false;
        }
        for (long pid = child + 1; pid <= last; pid++) {
            if (!ownThread.test(pid)) {
                return false;
            }
        }
        return true;
    }

    /** {@link #quiet} for the child {@code child}, with the counters {@code before} its spawn, now. */
    static boolean quiet(long child, Pids before) {
        return quiet(child, before, now(), PID_MAX, QuietRun::ownThread);
    }

    private static boolean ownThread(long tid) {
        return Files.exists(OWN_TASKS.resolve(Long.toString(tid)), LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * One read into a buffer large enough: a sysctl file answers only a read at offset 0, so
     * {@link Files#readString} (which reads a byte first) sees only the first digit.
     */
    static long readPidMax() {
        byte[] buf = new byte[32];
        int n;
        try (java.io.FileInputStream in = new java.io.FileInputStream("/proc/sys/kernel/pid_max")) {
            n = in.read(buf);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        long v = 0;
        int i = 0;
        while (i < n && i < 12 && buf[i] >= '0' && buf[i] <= '9') {
            v = v * 10 + (buf[i++] - '0');
        }
        return i > 0 && i < n && buf[i] == '\n' ? v : -1;
    }
}
