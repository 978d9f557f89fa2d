package dev.magus.orchestrator.pipeline;

import dev.magus.orchestrator.Orchestrator;
import dev.magus.orchestrator.Procs;
import dev.magus.orchestrator.TestHost;


import static dev.magus.orchestrator.TestHost.DEADLINE;
import static dev.magus.orchestrator.Procs.alive;
import static dev.magus.orchestrator.Procs.eventually;
import static dev.magus.orchestrator.TestHost.lines;
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
import dev.magus.policy.PolicyOrOff;
import dev.magus.telemetry.dedupe.LandlockWarningOnce;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/**
 * {@link Orchestrator#run}, the cold Flux whose subscription owns the run, against
 * {@link Orchestrator#submit}, whose run goes on whatever its subscribers do. Real confined
 * children; every wait is a bounded deadline for the kernel, not a timing assertion.
 */
class ColdRunTest {
    /** Starts a grandchild in its own group, records its pid, says so, and waits for it. */
    private static final String WITH_GRANDCHILD = "sleep 300 & echo $! > grandchild.pid; echo started; wait";

    @TempDir
    Path root;
    TestHost t;
    /** Every event of every run, as the builder's sink sees it: the Exited a cancelled subscriber misses. */
    final List<RunEvent> sunk = new CopyOnWriteArrayList<>();
    Orchestrator orchestrator;
    /** Process groups this test started outside the orchestrator. */
    final List<Long> ownGroups = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() {
        TestHost.assumeLandlock();
        t = new TestHost(root).mode("required");
        orchestrator = Orchestrator.builder(t.host()).sink(sunk::add).build();
    }

    /** Whatever a failed test left running is killed, so a failure never leaves sleeps behind; then the orchestrator is closed. */
    @AfterEach
    void killLeftovers() {
        sunk.stream().filter(e -> e instanceof RunEvent.Started).map(e -> ((RunEvent.Started) e).pid())
                .forEach(ownGroups::add);
        ownGroups.stream().flatMap(g -> Procs.liveInGroup(g).stream())
                .forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
        if (orchestrator != null) {
            orchestrator.close();
        }
    }

    private RunRequest sh(String script) {
        return RunRequest.builder(t.workspace, "sh", "-c", script).build();
    }

    private static boolean isLine(RunEvent e, String line) {
        return e instanceof RunEvent.Output o && o.line().equals(line);
    }

    /** The Exited the sinks saw for the one run of this test, waited for. */
    private RunEvent.Exited sunkExit() {
        assertThat(eventually(() -> sunk.stream().anyMatch(e -> e instanceof RunEvent.Exited)))
                .as("the run ended; sinks saw %s", sunk).isTrue();
        return sunk.stream().filter(e -> e instanceof RunEvent.Exited).map(e -> (RunEvent.Exited) e).findFirst().orElseThrow();
    }

    private long grandchild() {
        try {
            return Long.parseLong(Files.readString(t.workspace.resolve("grandchild.pid")).strip());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void nothingRunsUntilSubscriptionAndEachSubscriptionIsARunOfItsOwn() {
        Flux<RunEvent> cold = orchestrator.run(sh("echo once >> runs.txt"));
        assertThat(t.workspace.resolve("runs.txt")).doesNotExist();
        assertThat(sunk).isEmpty();

        RunEvent first = cold.blockLast(DEADLINE);
        RunEvent second = cold.blockLast(DEADLINE);

        assertThat(first).isInstanceOfSatisfying(RunEvent.Exited.class, e -> assertThat(e.status()).isZero());
        assertThat(second).isInstanceOfSatisfying(RunEvent.Exited.class, e -> assertThat(e.status()).isZero());
        assertThat(first.runId()).isNotEqualTo(second.runId());
        try {
            assertThat(Files.readAllLines(t.workspace.resolve("runs.txt"))).containsExactly("once", "once");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void disposingTheSubscriptionKillsTheChildAndItsGrandchild() {
        List<RunEvent> seen = new CopyOnWriteArrayList<>();
        Disposable subscription = orchestrator.run(sh(WITH_GRANDCHILD)).subscribe(seen::add);
        assertThat(eventually(() -> seen.stream().anyMatch(e -> isLine(e, "started")))).as("started; saw %s", seen).isTrue();
        long shell = ((RunEvent.Started) seen.get(0)).pid();
        long grandchild = grandchild();
        assertThat(alive(shell)).as("shell %d up", shell).isTrue();
        assertThat(alive(grandchild)).as("grandchild %d up", grandchild).isTrue();

        subscription.dispose();

        assertThat(eventually(() -> !alive(shell) && !alive(grandchild)))
                .as("shell %d and grandchild %d are gone", shell, grandchild).isTrue();
        assertThat(Procs.liveInGroup(shell)).isEmpty();
        RunEvent.Exited exit = sunkExit();
        assertThat(exit.status()).isEqualTo(128 + Child.SIGKILL);
        assertThat(exit.signal()).isEqualTo(Child.SIGKILL);
        assertThat(seen).as("the cancelled subscriber gets nothing more").noneMatch(e -> e instanceof RunEvent.Exited);
    }

    @Test
    void takeOneCancelsTheRunRightAfterItsStart() {
        // Started is emitted before the child is attached to the run: the cancellation that
        // take(1) sends on receiving it usually arrives first, and attaching must then kill.
        RunEvent.Started started = (RunEvent.Started) orchestrator.run(sh(WITH_GRANDCHILD)).take(1).blockLast(DEADLINE);

        RunEvent.Exited exit = sunkExit();
        assertThat(exit.status()).isEqualTo(128 + Child.SIGKILL);
        assertThat(exit.signal()).isEqualTo(Child.SIGKILL);
        assertThat(eventually(() -> Procs.liveInGroup(started.pid()).isEmpty()))
                .as("group %d is empty", started.pid()).isTrue();
    }

    @Test
    void anErrorThrownDownstreamCancelsTheRun() {
        Flux<RunEvent> failing = orchestrator.run(sh(WITH_GRANDCHILD)).map(e -> {
            if (isLine(e, "started")) {
                throw new IllegalStateException("subscriber gave up");
            }
            return e;
        });

        StepVerifier.create(failing)
                .expectNextMatches(e -> e instanceof RunEvent.Started)
                .thenConsumeWhile(e -> true)
                .expectErrorMessage("subscriber gave up")
                .verify(DEADLINE);

        long grandchild = grandchild();
        RunEvent.Exited exit = sunkExit();
        assertThat(exit.status()).isEqualTo(128 + Child.SIGKILL);
        assertThat(eventually(() -> !alive(grandchild))).as("grandchild %d is gone", grandchild).isTrue();
    }

    @Test
    void aCancellationRightAtSubscriptionStillEndsTheRunKilled() {
        StepVerifier.create(orchestrator.run(sh(WITH_GRANDCHILD))).thenCancel().verify(DEADLINE);

        // Either the child never started, or it was killed as soon as it was attached.
        RunEvent.Exited exit = sunkExit();
        assertThat(exit.status()).isEqualTo(128 + Child.SIGKILL);
        sunk.stream().filter(e -> e instanceof RunEvent.Started).map(e -> ((RunEvent.Started) e).pid())
                .forEach(pid -> assertThat(eventually(() -> Procs.liveInGroup(pid).isEmpty()))
                        .as("group %d is empty", pid).isTrue());
        if (Files.exists(t.workspace.resolve("grandchild.pid"))) {
            long grandchild = grandchild();
            assertThat(eventually(() -> !alive(grandchild))).as("grandchild %d is gone", grandchild).isTrue();
        }
    }

    @Test
    void aRunThatCompletesEndsWithItsOwnStatusAndKillsNothing() {
        StepVerifier.create(orchestrator.run(sh("echo done; exit 3")))
                .expectNextMatches(e -> e instanceof RunEvent.Started)
                .thenConsumeWhile(e -> !(e instanceof RunEvent.Exited))
                .assertNext(e -> {
                    RunEvent.Exited exit = (RunEvent.Exited) e;
                    assertThat(exit.status()).isEqualTo(3);
                    assertThat(exit.signal()).isZero();
                })
                .expectComplete()
                .verify(DEADLINE);
        assertThat(lines(sunk, RunEvent.Stream.STDOUT)).containsExactly("done");
    }

    @Test
    void cancellingAReplayOfASubmittedRunLeavesTheRunGoing() {
        Path go = t.workspace.resolve("go");
        Run run = orchestrator.submit(sh("echo started; while [ ! -e go ]; do sleep 0.1; done; exit 5"));

        // One replay cancelled by StepVerifier, one by take, one disposed: none may touch the run.
        StepVerifier.create(run.events())
                .expectNextMatches(e -> e instanceof RunEvent.Started)
                .thenConsumeWhile(e -> !isLine(e, "started"))
                .expectNextMatches(e -> isLine(e, "started"))
                .thenCancel()
                .verify(DEADLINE);
        long pid = ((RunEvent.Started) run.events().take(1).blockLast(DEADLINE)).pid();
        run.events().subscribe().dispose();
        assertThat(alive(pid)).as("the run's shell %d goes on", pid).isTrue();

        try {
            Files.createFile(go);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        StepVerifier.create(run.result())
                .assertNext(r -> {
                    assertThat(r.status()).isEqualTo(5);
                    assertThat(r.signal()).isZero();
                })
                .expectComplete()
                .verify(DEADLINE);
    }

    /**
     * The race {@link Orchestrator#run} relies on, without the race: a run cancelled after its
     * spawn was decided but before its child exists kills the child's whole group when the
     * child is attached.
     */
    @Test
    void aRunCancelledBeforeItsChildIsAttachedKillsTheGroupOnAttach() throws Exception {
        RunHandle handle = new RunHandle("early", Clock.systemUTC(),
                LandlockWarningOnce.forInvocation(false));
        assertThat(handle.beginSpawn()).as("nothing cancelled the run yet").isZero();
        handle.cancel();

        Spawn spawn = Launcher.get().spawn(new SpawnRequest(Path.of("/bin/sh"), List.of("sh", "-c", "sleep 300 & sleep 300"),
                Map.of("PATH", t.env.get("PATH")), t.workspace, Stdio.NULL_INPUT),
                ProbeStage.prepare(PolicyOrOff.off(), LandlockProbe.fixed(0), java.util.OptionalInt.empty()));
        assertThat(spawn).isInstanceOf(Spawn.Started.class);
        try (Child child = ((Spawn.Started) spawn).child()) {
            ownGroups.add((long) child.pid());
            // Both sleeps up first, so the kill has a grandchild to reach.
            assertThat(eventually(() -> Procs.liveInGroup(child.pid()).size() >= 2))
                    .as("group %d has the shell's jobs", child.pid()).isTrue();
            List<Long> group = Procs.liveInGroup(child.pid());

            handle.attach(child);

            assertThat(eventually(() -> group.stream().noneMatch(Procs::alive)))
                    .as("every process of group %d (%s) is gone", child.pid(), group).isTrue();
            Exit exit = child.waitFor();
            assertThat(exit.signal()).isEqualTo(Child.SIGKILL);
        }
    }
}
