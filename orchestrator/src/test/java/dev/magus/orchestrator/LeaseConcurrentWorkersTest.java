package dev.magus.orchestrator;

import dev.magus.orchestrator.run.Host;

import dev.magus.events.MagusEnv;
import static org.assertj.core.api.Assertions.assertThat;

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
import dev.magus.workspace.lease.LeaseMarkers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two delegated workers at once, each in its own checkout under its own job, sharing one job
 * store: each writes only its own globs, neither can read the other's lease (nor its own), and
 * the store takes both runs' trail rows while a third writer adds jobs.
 */
class LeaseConcurrentWorkersTest {
    static final int REFUSED_PER_WORKER = 12;

    @TempDir
    Path root;
    TestHost t;
    StateDir state;
    Path ws2;
    Job a;
    Job b;

    @BeforeEach
    void setUp() throws Exception {
        TestHost.assumeLandlock();
        t = new TestHost(root).mode("required");
        ws2 = Files.createDirectories(root.resolve("ws2")).toRealPath();
        Files.writeString(ws2.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        Files.createDirectories(t.workspace.resolve("src"));
        Files.createDirectories(ws2.resolve("lib"));
        Host host = t.host();
        state = StateDir.of(host.env(), host.home());
        Path cacheDir = Files.createDirectories(host.facts(host.tempBase()).magusCacheDir());
        try (JobStore store = JobStore.open(state.jobsDb())) {
            Job parent = store.add(Optional.empty(), List.of(WriteGlob.parse("**", "t")));
            a = store.add(Optional.of(parent.id()), List.of(WriteGlob.parse("src/**", "t")));
            b = store.add(Optional.of(parent.id()), List.of(WriteGlob.parse("lib/**", "t")));
        }
        new LeaseMarkers(state, cacheDir).acquire(t.workspace, a.id());
        new LeaseMarkers(state, cacheDir).acquire(ws2, b.id());
    }

    private static String worker(Path own, String glob, Path other, String otherGlob) {
        List<String> lines = new ArrayList<>();
        lines.add("try() { if sh -c \"$2\" 2>/dev/null; then echo \"$1=allowed\"; else echo \"$1=refused\"; fi; }");
        lines.add("echo lease=$MAGUS_LEASE");
        lines.add("try own 'echo x > " + own.resolve(glob).resolve("out") + "'");
        lines.add("try other 'echo x > " + other.resolve(otherGlob).resolve("out") + "'");
        lines.add("try markers 'cat \"$MAGUS_STATE_DIR\"/checkouts/*/*.lease'");
        lines.add("try store 'head -c 16 \"$MAGUS_STATE_DIR\"/jobs.db'");
        for (int i = 0; i < REFUSED_PER_WORKER; i++) {
            // Refused by the kernel, each a sandbox_denial row written while the other worker writes its own.
            lines.add("echo x > " + own.resolve("beside-" + i));
        }
        lines.add("echo done");
        return String.join("\n", lines);
    }

    @Test
    void eachWorkerWritesOnlyItsOwnGlobsAndTheStoreTakesBothTrails() throws Exception {
        Orchestrator o = t.orchestrator();
        Run runA = o.submit(RunRequest.builder(t.workspace, "sh", "-c", worker(t.workspace, "src", ws2, "lib")).build());
        Run runB = o.submit(RunRequest.builder(ws2, "sh", "-c", worker(ws2, "lib", t.workspace, "src")).build());
        CompletableFuture<Integer> third = CompletableFuture.supplyAsync(() -> {
            try (JobStore store = JobStore.open(state.jobsDb())) {
                for (int i = 0; i < 40; i++) {
                    store.add(Optional.of(a.parent().orElseThrow()), List.of(WriteGlob.parse("docs/" + i + "/**", "t")));
                }
                return store.list().size();
            }
        });
        List<RunEvent> eventsA = TestHost.events(runA);
        List<RunEvent> eventsB = TestHost.events(runB);
        List<String> outA = TestHost.lines(eventsA, RunEvent.Stream.STDOUT);
        List<String> outB = TestHost.lines(eventsB, RunEvent.Stream.STDOUT);
        assertThat(outA).as(TestHost.text(eventsA)).contains("own=allowed", "other=refused", "markers=refused", "store=refused", "done");
        assertThat(outB).as(TestHost.text(eventsB)).contains("own=allowed", "other=refused", "markers=refused", "store=refused", "done");
        assertThat(lease(outA)).extracting(CarriedLease::job).containsExactly(a.id().toString());
        assertThat(lease(outB)).extracting(CarriedLease::job).containsExactly(b.id().toString());
        assertThat(ws2.resolve("lib/out")).exists();
        assertThat(t.workspace.resolve("src/out")).exists();
        assertThat(t.workspace.resolve("beside-0")).doesNotExist();
        assertThat(third.join()).isEqualTo(3 + 40);

        try (JobStore store = JobStore.open(state.jobsDb())) {
            assertTrail(store.trail(a.id()), runA, t.workspace);
            assertTrail(store.trail(b.id()), runB, ws2);
        }
    }

    private static List<CarriedLease> lease(List<String> out) {
        String v = out.stream().filter(l -> l.startsWith("lease=")).findFirst().orElseThrow().substring("lease=".length());
        return CarriedLease.from(java.util.Map.of(MagusEnv.LEASE, v));
    }

    private static void assertTrail(List<TrailEntry> trail, Run run, Path checkout) {
        List<TrailEvent> events = trail.stream().map(TrailEntry::event).toList();
        assertThat(events).filteredOn(e -> e instanceof TrailEvent.RunStarted).hasSize(1);
        assertThat(events).filteredOn(e -> e instanceof TrailEvent.RunEnded).singleElement()
                .isEqualTo(new TrailEvent.RunEnded(run.id(), 0, 0));
        List<TrailEvent.SandboxDenial> denials = events.stream().filter(e -> e instanceof TrailEvent.SandboxDenial)
                .map(e -> (TrailEvent.SandboxDenial) e).toList();
        assertThat(denials).as("every refused write beside the glob, from this worker's run only")
                .extracting(TrailEvent.SandboxDenial::path)
                .containsAll(java.util.stream.IntStream.range(0, REFUSED_PER_WORKER).mapToObj(i -> checkout.resolve("beside-" + i)).toList())
                .allSatisfy(p -> assertThat(p.startsWith(checkout)).as("%s in %s", p, checkout).isTrue());
        assertThat(denials).allSatisfy(d -> assertThat(d.run()).contains(run.id()));
    }
}
