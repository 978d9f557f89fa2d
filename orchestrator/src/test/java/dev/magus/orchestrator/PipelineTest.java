package dev.magus.orchestrator;

import dev.magus.orchestrator.pipeline.RunJournal;

import static dev.magus.orchestrator.TestHost.DEADLINE;
import static dev.magus.orchestrator.TestHost.codes;
import static dev.magus.orchestrator.TestHost.events;
import static dev.magus.orchestrator.TestHost.lines;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Mode;
import dev.magus.events.RunEvent;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.Submission;
import dev.magus.orchestrator.run.RunResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;
import reactor.test.StepVerifier;

/** The run pipeline with real confined children on a fake host. */
class PipelineTest {
    @TempDir
    Path root;
    TestHost t;

    @BeforeEach
    void setUp() {
        TestHost.assumeLandlock();
        t = new TestHost(root).mode("required");
        // Something for the scrub to drop, so MGS2003 is part of every run.
        t.env.put("MAGUS_TEST_DROPPED", "x");
    }

    private RunRequest sh(String script) {
        return RunRequest.builder(t.workspace, "sh", "-c", script).build();
    }

    @Test
    void startedComesFirstThenLinesAndDiagnosticsThenExitedOnce() {
        Run run = t.orchestrator().submit(sh("echo out; echo err >&2; exit 3"));
        List<RunEvent> middle = new ArrayList<>();
        StepVerifier.create(run.events())
                .assertNext(e -> {
                    assertThat(e).isInstanceOf(RunEvent.Started.class);
                    RunEvent.Started s = (RunEvent.Started) e;
                    assertThat(s.mode()).isEqualTo(Mode.REQUIRED);
                    assertThat(s.pid()).isPositive();
                    assertThat(s.argv()).containsExactly("sh", "-c", "echo out; echo err >&2; exit 3");
                })
                .recordWith(() -> middle)
                .thenConsumeWhile(e -> !(e instanceof RunEvent.Exited))
                .assertNext(e -> assertThat(((RunEvent.Exited) e).status()).isEqualTo(3))
                .expectComplete()
                .verify(DEADLINE);
        // The recording also holds the Exited that ended the consumption, and nothing after it.
        assertThat(middle.get(middle.size() - 1)).isInstanceOf(RunEvent.Exited.class);
        assertThat(middle.subList(0, middle.size() - 1)).noneMatch(e -> e instanceof RunEvent.Started || e instanceof RunEvent.Exited);
        assertThat(lines(middle, RunEvent.Stream.STDOUT)).containsExactly("out");
        assertThat(lines(middle, RunEvent.Stream.STDERR)).containsExactly("err");
        assertThat(codes(middle)).containsExactly(Code.MGS2003);
        assertThat(middle).allMatch(e -> e.runId().equals(run.id()));

        RunResult result = run.result().block(DEADLINE);
        assertThat(result.status()).isEqualTo(3);
        assertThat(result.signal()).isZero();
        assertThat(result.count(Code.MGS2003)).isEqualTo(1);
    }

    @Test
    void cancelKillsTheWholeGroupAndEndsWith137() {
        Run run = t.orchestrator().submit(sh("sleep 100 & sleep 100"));
        long pid = run.events().ofType(RunEvent.Started.class).blockFirst(DEADLINE).pid();
        // Both sleeps are up (the shell may have exec'd into the second one).
        assertThat(Procs.eventually(() -> sleeps(pid) == 2)).as("two sleeps in group %d", pid).isTrue();
        List<Long> group = Procs.liveInGroup(pid);

        run.cancel();

        StepVerifier.create(run.result())
                .assertNext(r -> {
                    assertThat(r.status()).isEqualTo(137);
                    assertThat(r.signal()).isEqualTo(9);
                })
                .expectComplete()
                .verify(DEADLINE);
        StepVerifier.create(run.events().last()).expectNextMatches(e -> e instanceof RunEvent.Exited x && x.status() == 137)
                .expectComplete().verify(DEADLINE);
        assertThat(Procs.eventually(() -> group.stream().noneMatch(Procs::alive)))
                .as("every process of group %d (%s) is gone", pid, group).isTrue();
        assertThat(Procs.liveInGroup(pid)).isEmpty();
        run.cancel(); // idempotent
    }

    private static long sleeps(long pgid) {
        return Procs.liveInGroup(pgid).stream().filter(p -> {
            try {
                return Files.readString(Path.of("/proc/" + p + "/comm")).strip().equals("sleep");
            } catch (java.io.IOException e) {
                return false;
            }
        }).count();
    }

    @Test
    void aForwardedSignalReachesTheChildsTrap() {
        Run run = t.orchestrator().submit(sh("trap 'echo got-term; exit 7' TERM; echo ready; while :; do sleep 1; done"));
        run.events().filter(e -> e instanceof RunEvent.Output o && o.line().equals("ready")).blockFirst(DEADLINE);
        run.signal(15);
        assertThat(run.result().block(DEADLINE).status()).isEqualTo(7);
        assertThat(lines(events(run), RunEvent.Stream.STDOUT)).containsExactly("ready", "got-term");
    }

    @Test
    void stdinBytesReachTheChildThenEndOfFile() {
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c", "cat; echo after-eof")
                .stdin(new dev.magus.orchestrator.run.Stdin.Bytes("first\nsecond\n".getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .build());
        assertThat(run.result().block(DEADLINE).status()).isZero();
        assertThat(lines(events(run), RunEvent.Stream.STDOUT)).containsExactly("first", "second", "after-eof");
    }

    @Test
    void backgroundJobsTheChildLeftAreKilledWhenItExits() {
        Run run = t.orchestrator().submit(sh("sleep 100 & echo $!"));
        RunResult result = run.result().block(DEADLINE);
        assertThat(result.status()).isZero();
        long sleeper = Long.parseLong(lines(events(run), RunEvent.Stream.STDOUT).get(0).strip());
        assertThat(Procs.eventually(() -> !Procs.alive(sleeper))).as("background sleeper %d", sleeper).isTrue();
    }

    @Test
    void aDescendantThatLeftTheGroupDelaysTheEndOnlyByTheDrainGrace() {
        // setsid puts the sleeper in a group of its own: the group kill cannot reach it, and it
        // holds the pipes. The run still ends, with what the child printed; the sleeper outlives
        // DEADLINE, so without the drain grace the run would not end in time.
        Run run = t.orchestrator().submit(sh("setsid sleep 600 & echo $!; echo leader-done"));
        assertThat(run.result().block(DEADLINE).status()).isZero();
        List<String> out = lines(events(run), RunEvent.Stream.STDOUT);
        assertThat(out).endsWith("leader-done");
        long escaped = Long.parseLong(out.get(0).strip());
        ProcessHandle.of(escaped).ifPresent(ProcessHandle::destroyForcibly);
    }

    @Test
    void aLateSubscriberSeesTheWholeRun() {
        Run run = t.orchestrator().submit(sh("echo one; echo two; exit 4"));
        assertThat(run.result().block(DEADLINE).status()).isEqualTo(4);
        // The run has ended; a subscriber arriving now still gets everything, in order.
        for (int i = 0; i < 2; i++) {
            StepVerifier.create(run.events())
                    .expectNextMatches(e -> e instanceof RunEvent.Started)
                    .expectNextMatches(e -> e instanceof RunEvent.Diag d && d.diagnostic().code() == Code.MGS2003)
                    .expectNextMatches(e -> e instanceof RunEvent.Output o && o.line().equals("one"))
                    .expectNextMatches(e -> e instanceof RunEvent.Output o && o.line().equals("two"))
                    .expectNextMatches(e -> e instanceof RunEvent.Exited x && x.status() == 4)
                    .expectComplete()
                    .verify(DEADLINE);
        }
    }

    @Test
    void manyConcurrentChattyRunsAllFinish() {
        // More runs than a capped pool has threads, each writing more than a pipe holds: every
        // one needs its readers running while its own wait holds a thread.
        int n = Runtime.getRuntime().availableProcessors() * 10 + 10;
        Orchestrator o = t.orchestrator();
        // Each observed from before it starts: the journal keeps only a window of the output for later subscribers.
        List<List<RunEvent>> seen = IntStream.range(0, n).mapToObj(i -> java.util.Collections.synchronizedList(
                new java.util.ArrayList<RunEvent>())).toList();
        List<Run> runs = IntStream.range(0, n).mapToObj(i -> o.submit(Submission.of(sh("head -c 300000 /dev/zero | tr '\\0' y | fold -w 99"))
                .on(t.host()).observedBy(seen.get(i)::add))).toList();
        for (int i = 0; i < n; i++) {
            StepVerifier.create(runs.get(i).result()).assertNext(x -> assertThat(x.status()).isZero()).expectComplete()
                    .verify(DEADLINE);
            assertThat(lines(List.copyOf(seen.get(i)), RunEvent.Stream.STDOUT)).hasSize(300000 / 99 + 1);
            assertThat(lines(events(runs.get(i)), RunEvent.Stream.STDOUT)).as("a later subscriber: the window")
                    .hasSize(RunJournal.HISTORY);
        }
    }

    @Test
    void aSlowSubscriberNeverBlocksTheChildNorLosesTheExit() {
        // About 10 MB in 100-byte lines, far beyond any pipe buffer.
        Run run = t.orchestrator().submit(sh("head -c 10000000 /dev/zero | tr '\\0' x | fold -w 99"));
        // One subscriber dawdles over every element, another takes one and asks for nothing more.
        Disposable slow = run.events().delayElements(Duration.ofMillis(50)).subscribe();
        StepVerifier.create(run.events(), 1)
                .expectNextMatches(e -> e instanceof RunEvent.Started)
                .then(() -> {
                    // The child finishes and the result arrives while both still lag far behind.
                    RunResult r = run.result().block(DEADLINE);
                    assertThat(r).isNotNull();
                    assertThat(r.status()).isZero();
                })
                .thenRequest(Long.MAX_VALUE)
                .recordWith(ArrayList::new)
                .thenConsumeWhile(e -> !(e instanceof RunEvent.Exited))
                .consumeRecordedWith(rec -> assertThat(lines(new ArrayList<>(rec), RunEvent.Stream.STDOUT))
                        .hasSize(10_000_000 / 99 + 1))
                .expectNextMatches(e -> e instanceof RunEvent.Exited x && x.status() == 0)
                .expectComplete()
                .verify(DEADLINE);
        assertThat(slow.isDisposed()).as("the slow subscriber is still behind").isFalse();
        slow.dispose();
    }
}
