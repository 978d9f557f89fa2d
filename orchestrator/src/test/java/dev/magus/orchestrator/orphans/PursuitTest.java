package dev.magus.orchestrator.orphans;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * A survivor of the stray collection fails its run and is not left alive: it is pursued and
 * killed in the background. A real process adopted by this JVM as subreaper.
 */
class PursuitTest {
    @Test
    void aSurvivorOfTheCollectionIsKilledInTheBackgroundAfterwards() throws Exception {
        Assumptions.assumeTrue(Strays.adopt(), "skipped: this host cannot make the JVM a child subreaper");
        String runId = "pursuit-" + System.nanoTime();
        // sh starts a setsid sleep carrying the run's id and exits: the sleep is re-parented to us.
        Process sh = new ProcessBuilder("sh", "-c",
                "env MAGUS_RUN_ID=" + runId + " setsid sleep 60 </dev/null >/dev/null 2>&1 & echo $!").start();
        long stray = Long.parseLong(new String(sh.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip());
        assertThat(sh.waitFor(10, TimeUnit.SECONDS)).isTrue();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ProcessHandle.of(stray).flatMap(ProcessHandle::parent).map(ProcessHandle::pid)
                .orElse(-1L) != ProcessHandle.current().pid() && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(20);
        }
        assertThat(ProcessHandle.of(stray).flatMap(ProcessHandle::parent).map(ProcessHandle::pid))
                .as("adopted").contains(ProcessHandle.current().pid());
        // Wait until the environment (written by exec) names the run, then collect with no time at all.
        TimeUnit.MILLISECONDS.sleep(200);

        Collected c = Strays.collect(runId, sh.pid(), Duration.ZERO);

        assertThat(c.survivors()).as("no time to kill it: it survives the collection").contains(stray);
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ProcessHandle.of(stray).map(ProcessHandle::isAlive).orElse(false) && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(50);
        }
        assertThat(ProcessHandle.of(stray).map(ProcessHandle::isAlive).orElse(false))
                .as("the survivor %d is killed in the background after the collection", stray).isFalse();
    }
}
