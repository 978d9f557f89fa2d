package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.RunEvent;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.policy.lease.WriteGlob;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.jobs.Job;
import dev.magus.workspace.jobs.JobStore;
import dev.magus.workspace.lease.LeaseMarkers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real confined worker under a lease: the kernel holds it to its job's write_paths. */
class LeaseNarrowingRunTest {
    @TempDir
    Path root;
    TestHost t;
    StateDir state;
    Path cacheDir;
    Job child;

    @BeforeEach
    void setUp() throws Exception {
        TestHost.assumeLandlock();
        t = new TestHost(root).mode("required");
        Host host = t.host();
        state = StateDir.of(host.env(), host.home());
        cacheDir = Files.createDirectories(host.facts(host.tempBase()).magusCacheDir());
        Files.createDirectories(t.workspace.resolve("src"));
        try (JobStore store = JobStore.open(state.jobsDb())) {
            Job parent = store.add(Optional.empty(), List.of());
            child = store.add(Optional.of(parent.id()), List.of(WriteGlob.parse("src/**", "test")));
        }
        new LeaseMarkers(state, cacheDir).acquire(t.workspace, child.id());
    }

    private List<String> attempt() {
        String script = String.join("\n",
                "try() { if sh -c \"$2\" 2>/dev/null; then echo \"$1=allowed\"; else echo \"$1=refused\"; fi; }",
                "try inside 'echo x > " + t.workspace.resolve("src/a.txt") + "'",
                "try beside 'echo x > " + t.workspace.resolve("README") + "'",
                "try cache 'echo x > " + cacheDir.resolve("entry") + "'",
                "try temp 'echo x > \"$TMPDIR/t\"'",
                "echo done");
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c", script).build());
        List<RunEvent> events = TestHost.events(run);
        List<String> out = TestHost.lines(events, RunEvent.Stream.STDOUT);
        assertThat(out).as(TestHost.text(events)).contains("done");
        return out;
    }

    @Test
    void theWorkerWritesItsPathsTheCacheAndItsTempButNothingElseInTheCheckout() {
        assertThat(attempt()).contains("inside=allowed", "beside=refused", "cache=allowed", "temp=allowed");
        assertThat(t.workspace.resolve("README")).doesNotExist();
    }

    @Test
    void anEndedJobNoLongerNarrows() {
        try (JobStore store = JobStore.open(state.jobsDb())) {
            store.end(child.id(), false);
        }
        assertThat(attempt()).contains("inside=allowed", "beside=allowed");
    }

    @Test
    void aStoreThatCannotBeReadRefusesTheRunInsteadOfWideningIt() throws Exception {
        Files.writeString(state.jobsDb(), "not a database".repeat(500));
        Files.deleteIfExists(state.dir().resolve("jobs.db-wal"));
        Files.deleteIfExists(state.dir().resolve("jobs.db-shm"));
        Path spawned = t.workspace.resolve("spawned");
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "touch", spawned.toString()).build());
        List<RunEvent> events = TestHost.events(run);
        assertThat(events).noneMatch(e -> e instanceof RunEvent.Started);
        List<Diagnostic> diags = events.stream().filter(e -> e instanceof RunEvent.Diag).map(e -> ((RunEvent.Diag) e).diagnostic()).toList();
        assertThat(diags).anySatisfy(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2004);
            assertThat(d.layer()).isEqualTo(Layer.POLICY);
            assertThat(d.message()).contains(state.jobsDb().toString());
        });
        assertThat(run.result().block(TestHost.DEADLINE).status()).isEqualTo(125);
        assertThat(spawned).doesNotExist();
    }
}
