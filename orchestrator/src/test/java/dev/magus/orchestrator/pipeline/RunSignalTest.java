package dev.magus.orchestrator.pipeline;

import dev.magus.orchestrator.Orchestrator;
import dev.magus.orchestrator.Procs;
import dev.magus.orchestrator.TestHost;


import static dev.magus.orchestrator.TestHost.DEADLINE;
import static dev.magus.orchestrator.Procs.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.RunEvent;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.launch.Child;
import dev.magus.landlock.launch.Exit;
import dev.magus.landlock.launch.Launcher;
import dev.magus.landlock.launch.Spawn;
import dev.magus.landlock.launch.SpawnRequest;
import dev.magus.landlock.launch.Stdio;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.RunResult;
import dev.magus.policy.PolicyOrOff;
import dev.magus.telemetry.dedupe.LandlockWarningOnce;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Run#signal(int)} at each point of a run's life: before the spawn is decided it cancels
 * the run (no child; 128+N); between the decision and the attach it waits for the child; after
 * that it reaches the child's group. Real children; the points are reached by holding the
 * pipeline still, never by timing.
 */
class RunSignalTest {
    @TempDir
    Path root;
    TestHost t;

    @BeforeEach
    void setUp() {
        TestHost.assumeLandlock();
        t = new TestHost(root).mode("required");
    }

    @Test
    void aSignalBeforeTheSpawnCancelsTheRunWithItsStatusAndNoChildStarts() throws Exception {
        CountDownLatch probed = new CountDownLatch(1);
        CountDownLatch signalled = new CountDownLatch(1);
        // The probe runs right before the spawn is decided: the run is held there while it is signalled.
        LandlockProbe held = () -> {
            probed.countDown();
            try {
                signalled.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return LandlockProbe.kernel().abi();
        };
        Run run;
        RunResult result;
        try (Orchestrator o = Orchestrator.builder(t.host()).probe(held).build()) {
            run = o.submit(RunRequest.builder(t.workspace, "sh", "-c", "touch spawned").build());
            assertThat(probed.await(60, TimeUnit.SECONDS)).as("the run reached its probe").isTrue();
            run.signal(Child.SIGTERM);
            run.signal(Child.SIGINT); // the first one counts
            signalled.countDown();
            result = run.result().block(DEADLINE);
        }
        assertThat(result.status()).isEqualTo(128 + Child.SIGTERM);
        assertThat(result.signal()).isEqualTo(Child.SIGTERM);
        List<RunEvent> events = TestHost.events(run);
        assertThat(events).noneMatch(e -> e instanceof RunEvent.Started);
        assertThat(t.workspace.resolve("spawned")).doesNotExist();
    }

    @Test
    void signalsBetweenTheSpawnDecisionAndTheAttachReachTheGroupInOrderOnAttach() throws Exception {
        RunHandle handle = new RunHandle("window", Clock.systemUTC(),
                LandlockWarningOnce.forInvocation(false));
        assertThat(handle.beginSpawn()).isZero();
        handle.signal(Child.SIGHUP);
        Spawn spawn = Launcher.get().spawn(new SpawnRequest(Path.of("/bin/sh"), List.of("sh", "-c", "sleep 300 & sleep 300"),
                Map.of("PATH", t.env.get("PATH")), t.workspace, Stdio.NULL_INPUT),
                ProbeStage.prepare(PolicyOrOff.off(), LandlockProbe.fixed(0), java.util.OptionalInt.empty()));
        assertThat(spawn).isInstanceOf(Spawn.Started.class);
        try (Child child = ((Spawn.Started) spawn).child()) {
            try {
                assertThat(eventually(() -> Procs.liveInGroup(child.pid()).size() >= 2))
                        .as("group %d has the shell's jobs", child.pid()).isTrue();
                List<Long> group = Procs.liveInGroup(child.pid());

                handle.attach(child);

                assertThat(eventually(() -> group.stream().noneMatch(Procs::alive)))
                        .as("every process of group %d (%s) got SIGHUP", child.pid(), group).isTrue();
                Exit exit = child.waitFor();
                assertThat(exit.signal()).isEqualTo(Child.SIGHUP);
                // Reaped: a later signal is sent nowhere, and is no error.
                handle.signal(Child.SIGTERM);
            } finally {
                Procs.liveInGroup(child.pid()).forEach(p -> ProcessHandle.of(p).ifPresent(ProcessHandle::destroyForcibly));
            }
        }
    }

    @Test
    void aSignalAfterTheSpawnReachesTheChildAndTheRunEndsWithItsStatus() {
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c",
                "echo ready; sleep 300; touch spawned").build());
        run.events().filter(e -> e instanceof RunEvent.Output o && o.line().equals("ready")).blockFirst(DEADLINE);
        long group = ((RunEvent.Started) run.events().filter(e -> e instanceof RunEvent.Started).blockFirst(DEADLINE)).pid();
        // Not before sleep has replaced the shell's fork: a SIGINT that reaches the fork before
        // its exec is caught by dash's own handler (sh -c catches SIGINT) and lost with the exec,
        // and the shell then waits for a sleep that never got it (the 60 s timeout seen under load).
        assertThat(eventually(() -> Procs.liveInGroup(group).stream().anyMatch(RunSignalTest::isSleep))).isTrue();
        run.signal(Child.SIGINT);
        RunResult result = run.result().block(DEADLINE);
        assertThat(result.status()).isEqualTo(128 + Child.SIGINT);
        assertThat(result.signal()).isEqualTo(Child.SIGINT);
        assertThat(t.workspace.resolve("spawned")).doesNotExist();
    }

    private static boolean isSleep(long pid) {
        try {
            return java.nio.file.Files.readString(Path.of("/proc/" + pid + "/comm")).trim().equals("sleep");
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
