package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.RunEvent;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.jobs.Job;
import dev.magus.workspace.jobs.JobStore;
import dev.magus.workspace.lease.Marker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job store and the lease markers are outside every run's write grant: a confined child
 * under {@code required} can neither rewrite its lease nor the store the lease names, whatever
 * it tries, and finds the state dir through {@code MAGUS_STATE_DIR} all the same.
 */
class LeaseStateConfinedTest {
    @TempDir
    Path root;
    TestHost t;
    StateDir state;
    Marker marker;
    Job child;
    List<Job> jobsBefore;
    String markerBefore;

    @BeforeEach
    void setUp() throws Exception {
        TestHost.assumeLandlock();
        t = new TestHost(root).mode("required");
        Files.createDirectories(t.workspace.resolve("src"));
        LeasedWorkspace leased = LeasedWorkspace.of(t, "src/**");
        state = leased.state();
        child = leased.job();
        marker = leased.marker();
        try (JobStore store = JobStore.open(state.jobsDb())) {
            jobsBefore = store.list();
        }
        markerBefore = Files.readString(marker.file());
    }

    @Test
    void aConfinedChildCanNeitherRewriteItsLeaseNorTheJobStore() throws Exception {
        String script = String.join("\n",
                "echo state=$MAGUS_STATE_DIR",
                "try() { if sh -c \"$2\" 2>/dev/null; then echo \"$1=allowed\"; else echo \"$1=refused\"; fi; }",
                "try db-append 'echo x >> \"$MAGUS_STATE_DIR/jobs.db\"'",
                "try db-truncate ': > \"$MAGUS_STATE_DIR/jobs.db\"'",
                "try db-remove 'rm -f \"$MAGUS_STATE_DIR/jobs.db\"'",
                "try db-wal 'echo x > \"$MAGUS_STATE_DIR/jobs.db-wal\"'",
                "try marker-rewrite 'echo job=1 > " + marker.file() + "'",
                "try marker-remove 'rm -f " + marker.file() + "'",
                "try marker-new 'echo job=1 > " + marker.file().getParent().resolve("forged.lease") + "'",
                "try markers-dir 'mkdir \"$MAGUS_STATE_DIR/checkouts/forged\"'",
                "try workspace 'echo ok > " + t.workspace.resolve("src/written") + "'");
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c", script).build());
        List<RunEvent> events = TestHost.events(run);
        List<String> out = TestHost.lines(events, RunEvent.Stream.STDOUT);

        assertThat(out).as(TestHost.text(events)).contains("state=" + state.dir());
        assertThat(out).as(TestHost.text(events)).contains("db-append=refused", "db-truncate=refused", "db-remove=refused",
                "db-wal=refused", "marker-rewrite=refused", "marker-remove=refused", "marker-new=refused", "markers-dir=refused");
        assertThat(out).as("the same run may write its job's paths: the refusals are the state dir's")
                .contains("workspace=allowed");
        assertThat(Files.readString(marker.file())).isEqualTo(markerBefore);
        assertThat(marker.file().resolveSibling("forged.lease")).doesNotExist();
        try (JobStore store = JobStore.open(state.jobsDb())) {
            // magus itself wrote the run's rows (the file's bytes move with its WAL checkpoints);
            // the child changed nothing.
            assertThat(store.list()).isEqualTo(jobsBefore);
            assertThat(store.trail(child.id())).extracting(e -> e.event().kind())
                    .containsExactly("created", "run_started", "run_ended");
        }
    }
}
