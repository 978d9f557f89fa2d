package dev.magus.orchestrator.orphans;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Review experiment: the leader's descriptors are held for the life of the process, and a
 * FileChannel read on a thread with its interrupt status set closes the channel
 * (ClosedByInterruptException). One check on an interrupted thread then makes every later
 * check of the process fall back to the full pass.
 */
class LeaderListInterruptTest {
    @Test
    void oneInterruptedCheckDoesNotDisableTheFastFormForever() {
        Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/self/task")), "skipped: no /proc/self/task here");
        assertThat(LeaderList.PROC.stat()).as("readable before").isPresent();
        Thread.currentThread().interrupt();
        LeaderList.PROC.children();
        assertThat(Thread.interrupted()).isTrue();
        assertThat(LeaderList.PROC.stat()).as("readable after the interrupt is cleared").isPresent();
        assertThat(LeaderList.PROC.children()).as("readable after the interrupt is cleared").isPresent();
    }
}
