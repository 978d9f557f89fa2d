package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.RunEvent;
import dev.magus.orchestrator.contain.Containment;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.RunResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stray whose environment names another running run's {@code MAGUS_RUN_ID} is not passed off
 * as that run's: the environment is the child's to write. Two concurrent runs in one
 * orchestrator, real confined children.
 */
class StrayClaimingAnotherRunInRunsTest {
    @TempDir
    Path root;
    TestHost t;

    @BeforeEach
    void setUp() {
        TestHost.assumeLandlock();
        t = new TestHost(root).yaml("sandbox:\n  mode: required\n");
        // The subreaper's rules for whose stray is whose: runs without a cgroup of their own
        // (ContainedRunsInRunsTest holds the same strays under cgroup containment).
        System.setProperty(Containment.FORCE, "freeze");
    }

    @AfterEach
    void clear() {
        System.clearProperty(Containment.FORCE);
    }

    @Test
    void aStrayClaimingAnotherRunningRunsIdFailsThisRunAsUnaudited() throws Exception {
        Orchestrator o = t.orchestrator();
        String yaml = Files.readString(t.workspace.resolve("magus.yaml"));
        Run other = o.submit(RunRequest.builder(t.workspace, "sh", "-c", "sleep 4; exit 7").build());
        TimeUnit.MILLISECONDS.sleep(300);
        Run run = o.submit(RunRequest.builder(t.workspace, "sh", "-c",
                "env MAGUS_RUN_ID=" + other.id() + " setsid sh -c 'echo $$ > s.pid; sleep 1;"
                        + " printf \"sandbox: {mode: off}\\n\" > magus.yaml' </dev/null >/dev/null 2>&1 &"
                        + " while [ ! -s s.pid ]; do sleep 0.05; done").build());
        List<RunEvent> events = TestHost.events(run);
        RunResult result = run.result().block(TestHost.DEADLINE);
        long stray = Long.parseLong(Files.readString(t.workspace.resolve("s.pid")).strip());
        assertThat(result.status()).as("a stray that outlived this run's audit: %s", TestHost.text(events)).isEqualTo(1);
        assertThat(audit(events)).as(TestHost.text(events)).anySatisfy(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2002);
            assertThat(d.details()).containsEntry("change", "unaudited");
            assertThat(d.details().get("pids")).contains(Long.toString(stray));
        });

        assertThat(other.result().block(TestHost.DEADLINE).status()).isEqualTo(7);
        assertThat(ProcessHandle.of(stray).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        assertThat(t.workspace.resolve("magus.yaml")).as("the running run caught and undid the write").hasContent(yaml);
    }

    @Test
    void runIdsAreSixteenRandomHexDigits() {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            String id = Orchestrator.newRunId();
            assertThat(id).matches("[0-9a-f]{16}");
            ids.add(id);
        }
        assertThat(ids).hasSize(1000);
        // No shared prefix per orchestrator to guess the next from.
        assertThat(ids.stream().map(s -> s.substring(0, 8)).distinct().count()).isGreaterThan(990);
    }

    private static List<Diagnostic> audit(List<RunEvent> events) {
        return events.stream().filter(e -> e instanceof RunEvent.Diag).map(e -> ((RunEvent.Diag) e).diagnostic())
                .filter(d -> d.layer() == Layer.AUDIT).toList();
    }
}
