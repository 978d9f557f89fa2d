package dev.magus.orchestrator.orphans;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** When the end of a run may skip the pass over /proc: only when no process can have been born since its child. */
class QuietRunTest {
    private static final long PID_MAX = 32768;
    /** 150 tasks alive, 5 000 made since boot, before the spawn. */
    private static final QuietRun.Pids BEFORE = new QuietRun.Pids(150, 999, 5_000);

    private static QuietRun.Pids now(long last, long made) {
        return new QuietRun.Pids(150, last, 5_000 + made);
    }

    @Test
    void readsTheTaskCountTheLastPidAndTheForkCount() {
        assertThat(QuietRun.parse(ascii("0.90 1.30 2.24 3/164 9037\n"))).isEqualTo(new QuietRun.Pids(164, 9037, -1));
        assertThat(QuietRun.parse(ascii("0.90 1.30 2.24 3/164\n"))).isEqualTo(QuietRun.Pids.UNKNOWN);
        assertThat(QuietRun.parse(ascii("0.90 1.30 2.24 3/x 12\n"))).isEqualTo(QuietRun.Pids.UNKNOWN);
        assertThat(QuietRun.parse(ascii("0.90 1.30 2.24 3/164 12a\n"))).isEqualTo(QuietRun.Pids.UNKNOWN);
        assertThat(QuietRun.parse(new byte[0])).isEqualTo(QuietRun.Pids.UNKNOWN);
        assertThat(QuietRun.forks(ascii("cpu  1 2 3\nctxt 77\nbtime 5\nprocesses 123456\nprocs_running 2\n"))).isEqualTo(123456);
        assertThat(QuietRun.forks(ascii("cpu  1 2 3\nprocs_running 2\n"))).isEqualTo(-1);
        assertThat(QuietRun.forks(ascii("cpu 1\nprocesses \n"))).isEqualTo(-1);
        assertThat(QuietRun.forks(ascii("cpu 1\nprocesses 12"))).isEqualTo(-1);
    }

    @Test
    void theHostsOwnCountersAreRead() {
        Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/loadavg")) && Files.isReadable(Path.of("/proc/stat")),
                "skipped: no /proc/loadavg or /proc/stat here");
        QuietRun.Pids before = QuietRun.beforeSpawn();
        assertThat(before.known()).isTrue();
        QuietRun.Pids after = QuietRun.now();
        assertThat(after.known()).isTrue();
        assertThat(after.forks()).isGreaterThanOrEqualTo(before.forks());
        // The whole number: a sysctl file read a byte at a time gives only its first digit.
        assertThat(QuietRun.readPidMax()).isGreaterThan(RESERVED).isEqualTo(pidMaxBySysctl());
    }

    @Test
    void quietOnlyWhenEveryPidAfterTheChildsIsOneOfMagussOwnLiveThreads() {
        Set<Long> own = Set.of(1001L, 1002L);
        // Nothing born since the child.
        assertThat(QuietRun.quiet(1000, BEFORE, now(1000, 1), PID_MAX, own::contains)).isTrue();
        // Only magus's own threads since.
        assertThat(QuietRun.quiet(1000, BEFORE, now(1002, 3), PID_MAX, own::contains)).isTrue();
        // One pid since that is not a live thread of magus: a process (or an ended thread) was born.
        assertThat(QuietRun.quiet(1000, BEFORE, now(1003, 4), PID_MAX, own::contains)).isFalse();
        assertThat(QuietRun.quiet(1000, BEFORE, now(1001, 2), PID_MAX, p -> false)).isFalse();
        // The pids went round below the child's: never trusted.
        assertThat(QuietRun.quiet(1000, BEFORE, now(999, 40_000), PID_MAX, p -> true)).isFalse();
        assertThat(QuietRun.quiet(1000, BEFORE, now(400, 40_000), PID_MAX, p -> true)).isFalse();
        // A gap too long to look up.
        assertThat(QuietRun.quiet(1000, BEFORE, now(1000 + QuietRun.MAX_GAP + 1, 20), PID_MAX, p -> true)).isFalse();
    }

    @Test
    void neverTrustedWhenEnoughTasksWereMadeForThePidsToGoRound() {
        // A lap needs 32768 - 300 - 3 × (150 + made) pids: made < 8 004.5 is safe, more is not.
        assertThat(QuietRun.quiet(1000, BEFORE, now(1000, 8_004), PID_MAX, p -> false)).isTrue();
        assertThat(QuietRun.quiet(1000, BEFORE, now(1000, 8_005), PID_MAX, p -> false)).isFalse();
        assertThat(QuietRun.quiet(1000, BEFORE, now(1000, 32_768), PID_MAX, p -> false)).isFalse();
        // The very same last pid, after a full lap that landed on the child's pid again: not quiet.
        assertThat(QuietRun.quiet(1000, BEFORE, now(1000, 1_000_000), PID_MAX, p -> false)).isFalse();
        // A host so full of tasks that a lap would be short, a count going back, or nothing known: never trusted.
        assertThat(QuietRun.quiet(1000, new QuietRun.Pids(11_000, 999, 5_000), now(1000, 1), PID_MAX, p -> false)).isFalse();
        assertThat(QuietRun.quiet(1000, BEFORE, now(1000, -1), PID_MAX, p -> false)).isFalse();
        assertThat(QuietRun.quiet(1000, QuietRun.Pids.UNKNOWN, now(1000, 1), PID_MAX, p -> false)).isFalse();
        assertThat(QuietRun.quiet(1000, BEFORE, QuietRun.Pids.UNKNOWN, PID_MAX, p -> false)).isFalse();
        assertThat(QuietRun.quiet(1000, BEFORE, now(1000, 1), -1, p -> false)).isFalse();
    }

    @Test
    void aChildThatForkedIsNeverQuiet() throws Exception {
        Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/loadavg")) && Files.isReadable(Path.of("/proc/stat")),
                "skipped: no /proc/loadavg or /proc/stat here");
        QuietRun.Pids before = QuietRun.beforeSpawn();
        Process p = new ProcessBuilder("sh", "-c", "sleep 0.2 & wait").start();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        // The sleep was born after the child and is no thread of this JVM, however busy the host is.
        assertThat(QuietRun.quiet(p.pid(), before)).isFalse();
    }

    private static final long RESERVED = QuietRun.RESERVED_PIDS;

    private static long pidMaxBySysctl() {
        try {
            Process p = new ProcessBuilder("cat", "/proc/sys/kernel/pid_max").start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            p.waitFor(10, TimeUnit.SECONDS);
            return Long.parseLong(out);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
