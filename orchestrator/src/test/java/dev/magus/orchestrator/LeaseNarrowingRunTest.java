package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.RunEvent;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.policy.lease.CarriedLease;
import dev.magus.policy.lease.WriteGlob;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.jobs.Job;
import dev.magus.workspace.jobs.JobStore;
import dev.magus.workspace.jobs.TrailEntry;
import dev.magus.workspace.jobs.TrailEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
        Files.createDirectories(t.workspace.resolve("src"));
        LeasedWorkspace leased = LeasedWorkspace.of(t, "src/**");
        state = leased.state();
        cacheDir = leased.cacheDir();
        child = leased.job();
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

    private static List<Diagnostic> diagnostics(List<RunEvent> events) {
        return events.stream().filter(e -> e instanceof RunEvent.Diag).map(e -> ((RunEvent.Diag) e).diagnostic()).toList();
    }

    @Test
    void anApproversDecisionOnARefusedWriteIsATrailRow() {
        dev.magus.landlock.supervise.Support s = dev.magus.landlock.supervise.Support.probe();
        if (!s.available()) {
            System.err.println("SKIP anApproversDecisionOnARefusedWriteIsATrailRow: " + s.reason());
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(s.available(), s.reason());
        Path beside = t.workspace.resolve("README");
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c", "echo x > " + beside + "; true")
                .approver(ask -> reactor.core.publisher.Mono.just(dev.magus.landlock.supervise.Decision.DENY)).build());
        List<RunEvent> events = TestHost.events(run);
        assertThat(diagnostics(events)).as(TestHost.text(events)).anySatisfy(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2002);
            assertThat(d.details()).containsEntry("decision", "deny").containsEntry("job", child.id().toString());
        });
        assertThat(beside).doesNotExist();
        try (JobStore store = JobStore.open(state.jobsDb())) {
            assertThat(store.trail(child.id()).stream().map(TrailEntry::event).toList())
                    .filteredOn(e -> e instanceof TrailEvent.SandboxDenial).singleElement()
                    .isInstanceOfSatisfying(TrailEvent.SandboxDenial.class, d -> {
                        assertThat(d.path()).isEqualTo(beside);
                        assertThat(d.source()).isEqualTo("supervisor (deny)");
                    });
        }
    }

    @Test
    void aRefusalBesideTheGlobsNamesTheJobAndGoesOnItsTrail() {
        Path beside = t.workspace.resolve("README");
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c",
                "echo x > " + t.workspace.resolve("src/a.txt") + "; echo x > " + beside + "; exit 3").build());
        List<RunEvent> events = TestHost.events(run);
        assertThat(run.result().block(TestHost.DEADLINE).status()).isEqualTo(3);
        assertThat(diagnostics(events)).as(TestHost.text(events)).anySatisfy(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2002);
            assertThat(d.layer()).isEqualTo(Layer.KERNEL);
            assertThat(d.subject()).isEqualTo(beside.toString());
            assertThat(d.details()).containsEntry("job", child.id().toString()).containsEntry("write_paths", "src/**")
                    .containsEntry("lease", t.workspace.toString());
        });
        try (JobStore store = JobStore.open(state.jobsDb())) {
            List<TrailEvent> trail = store.trail(child.id()).stream().map(TrailEntry::event).toList();
            assertThat(trail).filteredOn(e -> e instanceof TrailEvent.RunStarted).singleElement()
                    .isInstanceOfSatisfying(TrailEvent.RunStarted.class, r -> {
                        assertThat(r.run()).isEqualTo(run.id());
                        assertThat(r.dir()).isEqualTo(t.workspace);
                        assertThat(r.command()).startsWith("sh -c");
                    });
            assertThat(trail).filteredOn(e -> e instanceof TrailEvent.SandboxDenial).isNotEmpty()
                    .allSatisfy(e -> assertThat(e).isInstanceOfSatisfying(TrailEvent.SandboxDenial.class, d -> {
                        assertThat(d.path()).isEqualTo(beside);
                        assertThat(d.code()).isEqualTo(Code.MGS2002);
                        assertThat(d.layer()).isEqualTo(Layer.KERNEL);
                        assertThat(d.run()).contains(run.id());
                    }));
            assertThat(trail.get(trail.size() - 1)).isEqualTo(new TrailEvent.RunEnded(run.id(), 3, 0));
        }
    }

    @Test
    void theChildIsHandedItsLeaseAfterTheOverlayAndNothingOfTheStore() {
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c",
                "echo lease=$MAGUS_LEASE; cat \"$MAGUS_STATE_DIR\"/checkouts/*/*.lease && echo marker=read || echo marker=refused")
                .set("MAGUS_LEASE", "job=1&checkout=/&write=**").build());
        List<RunEvent> events = TestHost.events(run);
        List<String> out = TestHost.lines(events, RunEvent.Stream.STDOUT);
        String lease = out.stream().filter(l -> l.startsWith("lease=")).findFirst().orElseThrow().substring("lease=".length());
        assertThat(CarriedLease.decode(lease)).isEqualTo(new CarriedLease(child.id().toString(), t.workspace,
                List.of(WriteGlob.parse("src/**", "t"))));
        assertThat(out).as(TestHost.text(events)).contains("marker=refused");
    }

    private void expectRefusedWithoutSpawning(String... inMessage) {
        Path spawned = t.workspace.resolve("spawned");
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "touch", spawned.toString()).build());
        List<RunEvent> events = TestHost.events(run);
        assertThat(events).noneMatch(e -> e instanceof RunEvent.Started);
        assertThat(diagnostics(events)).anySatisfy(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2004);
            assertThat(d.message()).contains(inMessage);
        });
        assertThat(run.result().block(TestHost.DEADLINE).status()).isEqualTo(125);
        assertThat(spawned).doesNotExist();
    }

    @Test
    void aStoreThatIsADirectoryRefusesTheRun() throws Exception {
        Files.delete(state.jobsDb());
        Files.deleteIfExists(state.dir().resolve("jobs.db-wal"));
        Files.deleteIfExists(state.dir().resolve("jobs.db-shm"));
        Files.createDirectories(state.jobsDb());
        expectRefusedWithoutSpawning(state.jobsDb().toString());
    }

    @Test
    void aStoreFromANewerMagusRefusesTheRun() throws Exception {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + state.jobsDb());
             java.sql.Statement s = c.createStatement()) {
            s.execute("PRAGMA user_version = 99");
        }
        expectRefusedWithoutSpawning(state.jobsDb().toString(), "schema version 99");
    }

    @Test
    void aStoreThatCanBeReadButNotWrittenRefusesTheRun() throws Exception {
        // Another process holds the write lock past the busy timeout: the lease is read (WAL
        // readers do not wait), but run_started cannot be written, so the run never starts.
        try (java.sql.Connection holder = java.sql.DriverManager.getConnection("jdbc:sqlite:" + state.jobsDb());
             java.sql.Statement s = holder.createStatement()) {
            s.execute("BEGIN IMMEDIATE");
            s.execute("INSERT INTO jobs (state, created_ms) VALUES ('live', 0)");
            expectRefusedWithoutSpawning(state.jobsDb().toString(), "locked");
            s.execute("ROLLBACK");
        }
    }
}
