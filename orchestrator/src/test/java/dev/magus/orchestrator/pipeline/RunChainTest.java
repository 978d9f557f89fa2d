package dev.magus.orchestrator.pipeline;

import dev.magus.orchestrator.Orchestrator;
import dev.magus.orchestrator.RecordingSpawner;
import dev.magus.orchestrator.TestHost;

import static dev.magus.orchestrator.TestHost.DEADLINE;
import static dev.magus.orchestrator.TestHost.codes;
import static dev.magus.orchestrator.TestHost.events;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.RunEvent;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.launch.Child;
import dev.magus.landlock.launch.Confinement;
import dev.magus.landlock.launch.Spawn;
import dev.magus.landlock.launch.SpawnRequest;
import dev.magus.landlock.launch.Spawner;
import dev.magus.orchestrator.network.HostResolver;
import dev.magus.orchestrator.run.Passthrough;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.RunResult;
import dev.magus.telemetry.dedupe.LandlockWarningOnce;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.test.StepVerifier;

/**
 * The run as a Reactor chain ({@link RunStages}), on any Linux host (a {@link RecordingSpawner}
 * that confines nothing, best-effort on "no Landlock"): a refusal is the chain's error signal
 * and the run still ends with its status; a signal before the spawn disposes the chain wherever
 * it is, no child starts, whatever the stages held back comes before Exited, the private temp
 * dir is gone and the run ends with 128+N. The run is held at a stage by a fake that waits,
 * never by timing.
 */
class RunChainTest {
    @TempDir
    Path root;
    TestHost t;
    RecordingSpawner spawner;

    @BeforeEach
    void setUp() {
        TestHost.assumeChildren();
        t = new TestHost(root).mode("best-effort");
        // Something for the scrub to drop: an MGS2003 is held back in every run.
        t.env.put("MAGUS_TEST_DROPPED", "x");
        spawner = RecordingSpawner.withoutKernel();
    }

    private RunStages stages(LandlockProbe probe, Spawner s) {
        return new RunStages(probe, s, Optional.empty(), Optional.empty(), HostResolver.system(), t.services);
    }

    private static RunHandle handle(String id) {
        return new RunHandle(id, Clock.systemUTC(), LandlockWarningOnce.forInvocation(false));
    }

    private RunRequest touch() {
        return RunRequest.builder(t.workspace, "sh", "-c", "touch spawned").build();
    }

    /** What every run cancelled before its spawn shows. */
    private void assertCancelled(Run run, int signal) {
        RunResult result = run.result().block(DEADLINE);
        assertThat(result.status()).isEqualTo(128 + signal);
        assertThat(result.signal()).isEqualTo(signal);
        List<RunEvent> events = events(run);
        assertThat(events).noneMatch(e -> e instanceof RunEvent.Started);
        assertThat(events).filteredOn(e -> e instanceof RunEvent.Exited).hasSize(1);
        assertThat(events.get(events.size() - 1)).isInstanceOf(RunEvent.Exited.class);
        assertThat(spawner.calls()).as("no child was asked for").isEmpty();
        assertThat(t.workspace.resolve("spawned")).doesNotExist();
        assertThat(t.tempBase).as("the private temp dir is gone").isEmptyDirectory();
    }

    @Test
    void aRefusalIsTheChainsErrorSignalAndTheRunStillEndsWithItsStatus() {
        RunHandle run = handle("refused");
        RunRequest request = RunRequest.builder(t.workspace, "magus-test-no-such-command").build();
        StepVerifier.create(stages(LandlockProbe.fixed(0), spawner).execution(run, request, Passthrough.none(), t.host()))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(Refusal.Said.class,
                        r -> assertThat(r.status()).isEqualTo(127)))
                .verify(DEADLINE);
        // The release reported it before the error went on: the run has ended.
        assertThat(run.journal().ended()).isTrue();
        assertThat(run.result().block(DEADLINE).status()).isEqualTo(127);
        assertThat(TestHost.lines(events(run), RunEvent.Stream.STDERR))
                .containsExactly("magus: magus-test-no-such-command: command not found");
        assertThat(spawner.calls()).isEmpty();
        assertThat(t.tempBase).isEmptyDirectory();
    }

    @Test
    void aStartedRunEmitsItsEndingAndCompletes() {
        RunHandle run = handle("started");
        StepVerifier.create(stages(LandlockProbe.fixed(0), spawner).execution(run,
                        RunRequest.builder(t.workspace, "sh", "-c", "exit 4").build(), Passthrough.none(), t.host()))
                .assertNext(ending -> assertThat(ending).isEqualTo(new Attempt.Ending(4, 0)))
                .expectComplete()
                .verify(DEADLINE);
        List<RunEvent> events = events(run);
        assertThat(events.get(0)).isInstanceOf(RunEvent.Started.class);
        // Held back until Started: the scrub's and the best-effort warning's diagnostics come after it.
        assertThat(codes(events)).contains(Code.MGS2003, Code.MGS2005);
        assertThat(events.get(events.size() - 1)).isInstanceOfSatisfying(RunEvent.Exited.class,
                e -> assertThat(e.status()).isEqualTo(4));
        assertThat(spawner.calls()).hasSize(1);
    }

    @Test
    void aStageThatBreaksEndsTheRunWith125AndSaysSoAfterWhatWasHeldBack() {
        Spawner broken = new Spawner() {
            @Override
            public Spawn spawn(SpawnRequest request, Confinement confinement) {
                return spawner.spawn(request, confinement);
            }

            @Override
            public void prepare() {
                throw new IllegalStateException("warm-up broke");
            }
        };
        Run run;
        try (Orchestrator o = Orchestrator.builder(t.host()).probe(LandlockProbe.fixed(0)).spawner(broken).build()) {
            run = o.submit(touch());
            assertThat(run.result().block(DEADLINE).status()).isEqualTo(125);
        }
        List<RunEvent> events = events(run);
        assertThat(events).noneMatch(e -> e instanceof RunEvent.Started);
        assertThat(events.get(0)).isInstanceOfSatisfying(RunEvent.Diag.class,
                d -> assertThat(d.diagnostic().code()).isEqualTo(Code.MGS2003));
        assertThat(TestHost.lines(events, RunEvent.Stream.STDERR)).singleElement().satisfies(l -> assertThat(l)
                .startsWith("magus: an unexpected failure in magus itself").contains("IllegalStateException: warm-up broke"));
        assertThat(events.get(events.size() - 1)).isInstanceOf(RunEvent.Exited.class);
        assertThat(spawner.calls()).isEmpty();
        assertThat(t.tempBase).isEmptyDirectory();
    }

    @Test
    void aSignalBeforeTheChainIsSubscribedDisposesItAtOnce() {
        RunHandle run = handle("early");
        run.signal(Child.SIGTERM);
        stages(LandlockProbe.fixed(0), spawner).start(run, touch(), Passthrough.none(), t.host());
        assertCancelled(run, Child.SIGTERM);
    }

    @Test
    void aSignalWhileTheSpawnerWarmsUpCancelsTheRunAndNoChildStarts() throws Exception {
        CountDownLatch preparing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Spawner held = new Spawner() {
            @Override
            public Spawn spawn(SpawnRequest request, Confinement confinement) {
                return spawner.spawn(request, confinement);
            }

            @Override
            public void prepare() {
                preparing.countDown();
                await(release);
            }
        };
        Run run;
        try (Orchestrator o = Orchestrator.builder(t.host()).probe(LandlockProbe.fixed(0)).spawner(held).build()) {
            run = o.submit(touch());
            assertThat(preparing.await(60, TimeUnit.SECONDS)).as("the run reached the spawner's warm-up").isTrue();
            run.signal(Child.SIGINT);
            release.countDown();
            assertCancelled(run, Child.SIGINT);
        }
        // Held back by the env stage, flushed by the end: before Exited, with no Started.
        assertThat(codes(events(run))).containsExactly(Code.MGS2003);
    }

    @Test
    void aSignalWhileTheProbeRunsCancelsTheRunAndWhatWasHeldBackPrecedesExited() throws Exception {
        CountDownLatch probing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        LandlockProbe held = () -> {
            probing.countDown();
            await(release);
            return 0;
        };
        Run run = t.orchestrator(held, spawner).submit(touch());
        assertThat(probing.await(60, TimeUnit.SECONDS)).as("the run reached its probe").isTrue();
        run.signal(Child.SIGHUP);
        run.signal(Child.SIGTERM); // the first one counts
        release.countDown();
        assertCancelled(run, Child.SIGHUP);
        // The stage the signal overtook finished (its MGS2005 is held back too), and nothing after it ran.
        assertThat(codes(events(run))).containsExactly(Code.MGS2003, Code.MGS2005);
    }

    @Test
    void aSignalAfterTheSpawnReachesTheChildsGroup() {
        Run run = t.orchestrator(LandlockProbe.fixed(0), spawner).submit(RunRequest.builder(t.workspace, "sh", "-c",
                "echo ready; sleep 300; touch spawned").build());
        run.events().filter(e -> e instanceof RunEvent.Output o && o.line().equals("ready")).blockFirst(DEADLINE);
        run.signal(Child.SIGTERM);
        RunResult result = run.result().block(DEADLINE);
        assertThat(result.status()).isEqualTo(128 + Child.SIGTERM);
        assertThat(result.signal()).isEqualTo(Child.SIGTERM);
        assertThat(spawner.calls()).hasSize(1);
        assertThat(t.workspace.resolve("spawned")).doesNotExist();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
