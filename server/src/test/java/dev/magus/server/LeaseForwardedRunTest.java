package dev.magus.server;

import dev.magus.events.MagusEnv;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.orchestrator.run.Host;
import dev.magus.policy.lease.CarriedLease;
import dev.magus.policy.lease.WriteGlob;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.jobs.Job;
import dev.magus.workspace.jobs.JobStore;
import dev.magus.workspace.jobs.TrailEntry;
import dev.magus.workspace.lease.LeaseMarkers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run forwarded over the real Unix socket is held to the client's checkout lease exactly as a
 * local run: the same narrowed grant, the refusal naming the job, the job's trail; and a lease
 * the client carries ({@code MAGUS_LEASE}) narrows it further, never wider.
 */
class LeaseForwardedRunTest {
    @TempDir
    Path root;
    Fixture f;
    StateDir state;
    Job job;

    @BeforeEach
    void start() throws Exception {
        int abi = LandlockProbe.kernel().abi();
        String why = "server lease test skipped: needs Linux with Landlock ABI 3 or newer (ABI " + abi + ")";
        if (abi < 3) {
            System.err.println(why);
        }
        Assumptions.assumeTrue(abi >= 3, why);
        f = new Fixture(root);
        f.yaml("sandbox:\n  mode: required\n");
        Files.createDirectories(f.workspace.resolve("src/only"));
        Host host = f.host();
        state = StateDir.of(host.env(), host.home());
        try (JobStore store = JobStore.open(state.jobsDb())) {
            Job parent = store.add(Optional.empty(), List.of(WriteGlob.parse("**", "t")));
            job = store.add(Optional.of(parent.id()), List.of(WriteGlob.parse("src/**", "t")));
        }
        Path cacheDir = Files.createDirectories(host.facts(host.tempBase()).magusCacheDir());
        new LeaseMarkers(state, cacheDir).acquire(f.workspace, job.id());
    }

    @AfterEach
    void stop() {
        if (f != null) {
            f.close();
        }
    }

    /** magus's lines of {@code code} on the run's stderr. */
    private static List<String> diagnostics(Fixture.Result r, String code) {
        return r.lines().stream().filter(l -> l.startsWith("magus: " + code + " ")).toList();
    }

    @Test
    void aForwardedRunIsNarrowedByTheCheckoutsLeaseAndNamesTheJob() throws Exception {
        Path beside = f.workspace.resolve("README");
        Fixture.Result r = f.forward(f.run(f.env, List.of("-v"), "sh", "-c", "echo x > src/a; echo x > README; echo done"));
        assertThat(r.out()).contains("done");
        assertThat(f.workspace.resolve("src/a")).exists();
        assertThat(beside).doesNotExist();
        assertThat(diagnostics(r, "MGS2002")).anySatisfy(d -> assertThat(d).contains(beside.toString())
                .contains("job=" + job.id() + ","));
        try (JobStore store = JobStore.open(state.jobsDb())) {
            assertThat(store.trail(job.id())).extracting(TrailEntry::event).extracting(e -> e.kind())
                    .contains("run_started", "sandbox_denial", "run_ended");
        }
    }

    @Test
    void aLeaseTheClientCarriesNarrowsTheForwardedRunFurther() throws Exception {
        Map<String, String> env = new LinkedHashMap<>(f.env);
        env.put(MagusEnv.LEASE, new CarriedLease(job.id().toString(), f.workspace,
                List.of(WriteGlob.parse("src/only/**", "t"))).encode());
        Fixture.Result r = f.forward(f.run(env, List.of(), "sh", "-c",
                "echo x > src/only/a; echo x > src/b; echo done"));
        assertThat(r.out()).contains("done");
        assertThat(f.workspace.resolve("src/only/a")).exists();
        assertThat(f.workspace.resolve("src/b")).as("the carried lease is narrower than the checkout's").doesNotExist();
    }

    @Test
    void aCarriedLeaseOfAnotherJobOnTheCheckoutIsRefused() throws Exception {
        Map<String, String> env = new LinkedHashMap<>(f.env);
        env.put(MagusEnv.LEASE, new CarriedLease("999", f.workspace, List.of(WriteGlob.parse("**", "t"))).encode());
        Fixture.Result r = f.forward(f.run(env, List.of(), "sh", "-c", "touch spawned"));
        assertThat(r.status()).isEqualTo(125);
        assertThat(diagnostics(r, "MGS2004")).singleElement()
                .satisfies(d -> assertThat(d).contains("job 999").contains("job " + job.id()));
        assertThat(f.workspace.resolve("spawned")).doesNotExist();
    }
}
