package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.orchestrator.contain.Containment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link ForkHoppingStrayInRunsTest}'s chain under cgroup containment: every link is born in
 * the run's cgroup, so the run's end catches it whatever it does, in 100 of 100 tries: killed
 * before the audit, the run exiting 0, the cgroup removed. Never the "failed as unaudited"
 * way out that the subreaper's path is allowed.
 */
class ForkHoppingContainedInRunsTest {
    @TempDir
    Path root;
    TestHost t;
    Path python;
    Containment.ByCgroup here;

    @BeforeEach
    void setUp() throws IOException {
        TestHost.assumeLandlock();
        here = ContainedRunsInRunsTest.assumeCgroups();
        Optional<Path> found = dev.magus.policy.LookPath.find("python3", "/usr/bin:/bin", root);
        if (found.isEmpty()) {
            System.err.println("contained fork-hopping test skipped: no /usr/bin/python3 here");
        }
        Assumptions.assumeTrue(found.isPresent(), "no /usr/bin/python3 here");
        python = found.get();
        t = new TestHost(root).yaml("sandbox:\n  mode: required\n");
        Files.writeString(t.workspace.resolve("hop.py"), ForkHoppingStrayInRunsTest.HOP);
    }

    @ParameterizedTest(name = "batch {0}")
    @ValueSource(ints = {1, 2, 3, 4})
    void everyLinkIsKilledBeforeTheAudit(int batch) throws Exception {
        ForkHoppingStrayInRunsTest.tries(t.orchestrator(), t.workspace, python, batch, (i, run, events, result, alive) -> {
            assertThat(alive).as("try %d of batch %d: links alive, events %s", i, batch, TestHost.text(events)).isEmpty();
            assertThat(result.status()).as("try %d of batch %d: %s", i, batch, TestHost.text(events)).isZero();
            assertThat(ContainedRunsInRunsTest.runCgroups(here.parent(), run.id())).isEmpty();
        });
    }
}
