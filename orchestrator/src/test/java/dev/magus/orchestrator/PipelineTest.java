package dev.magus.orchestrator;

import static dev.magus.orchestrator.TestHost.DEADLINE;
import static dev.magus.orchestrator.TestHost.codes;
import static dev.magus.orchestrator.TestHost.events;
import static dev.magus.orchestrator.TestHost.lines;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.RunEvent;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.RunResult;
import dev.magus.policy.mode.Mode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
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
                    assertThat(s.mode()).isEqualTo("required");
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

    /** A refusal case: what to set up, the expected code and status. */
    private void assertRefused(Run run, Code code, int status) {
        Path spawned = t.workspace.resolve("spawned");
        List<RunEvent> events = events(run);
        assertThat(events).noneMatch(e -> e instanceof RunEvent.Started);
        assertThat(codes(events)).contains(code);
        assertThat(events.get(events.size() - 1)).isInstanceOfSatisfying(RunEvent.Exited.class,
                e -> assertThat(e.status()).isEqualTo(status));
        assertThat(events).filteredOn(e -> e instanceof RunEvent.Exited).hasSize(1);
        RunResult result = run.result().block(DEADLINE);
        assertThat(result.status()).isEqualTo(status);
        assertThat(result.count(code)).isEqualTo(1);
        assertThat(spawned).as("the refused command never ran").doesNotExist();
        assertThat(t.tempBase).as("no private temp dir left behind").isEmptyDirectory();
    }

    private RunRequest touch() {
        return sh("touch spawned");
    }

    @Test
    void aBadModeInMagusYamlIsRefusedWithMgs2004() {
        t.mode("strict");
        assertRefused(t.orchestrator().submit(touch()), Code.MGS2004, 125);
    }

    @Test
    void aBadMagusSandboxValueIsRefusedWithMgs2004() {
        t.env.put("MAGUS_SANDBOX", "mostly");
        assertRefused(t.orchestrator().submit(touch()), Code.MGS2004, 125);
    }

    @Test
    void aMalformedAllowEntryIsRefusedWithMgs2004() {
        t.yaml("sandbox:\n  mode: required\n  allow:\n    - path: /opt\n      mode: rwz\n");
        assertRefused(t.orchestrator().submit(touch()), Code.MGS2004, 125);
    }

    @Test
    void aRequestWeakerThanTheFloorIsRefusedWithMgs2010() {
        t.env.put("MAGUS_SANDBOX", "required");
        RunRequest req = RunRequest.builder(t.workspace, "sh", "-c", "touch spawned").sandbox(Mode.BEST_EFFORT).build();
        assertRefused(t.orchestrator().submit(req), Code.MGS2010, 125);
    }

    @Test
    void requiredOnAnAbiBelowThreeIsRefusedWithMgs2012() {
        assertRefused(t.orchestrator(LandlockProbe.fixed(2)).submit(touch()), Code.MGS2012, 125);
    }

    @Test
    void aBinaryOutsideEveryExecRuleIsRefusedWithMgs2007() {
        Path dropped = TestHost.script(t.home.resolve("Downloads"), "payload", "touch " + t.workspace.resolve("spawned"));
        assertRefused(t.orchestrator().submit(RunRequest.builder(t.workspace, dropped.toString()).build()), Code.MGS2007, 126);
    }

    @Test
    void anUnknownCommandEndsWith127AndNeverStarts() {
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "magus-test-no-such-command").build());
        List<RunEvent> events = events(run);
        assertThat(events).noneMatch(e -> e instanceof RunEvent.Started);
        assertThat(lines(events, RunEvent.Stream.STDERR)).anySatisfy(l -> assertThat(l).contains("command not found"));
        assertThat(run.result().block(DEADLINE).status()).isEqualTo(127);
        assertThat(events.get(events.size() - 1)).isInstanceOf(RunEvent.Exited.class);
    }

    @Test
    void cancelKillsTheWholeGroupAndEndsWith137() {
        Run run = t.orchestrator().submit(sh("sleep 100 & sleep 100"));
        long pid = run.events().ofType(RunEvent.Started.class).blockFirst(DEADLINE).pid();
        // Both sleeps are up (the shell may have exec'd into the second one).
        assertThat(TestHost.eventually(() -> sleeps(pid) == 2)).as("two sleeps in group %d", pid).isTrue();
        List<Long> group = TestHost.liveInGroup(pid);

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
        assertThat(TestHost.eventually(() -> group.stream().noneMatch(TestHost::alive)))
                .as("every process of group %d (%s) is gone", pid, group).isTrue();
        assertThat(TestHost.liveInGroup(pid)).isEmpty();
        run.cancel(); // idempotent
    }

    private static long sleeps(long pgid) {
        return TestHost.liveInGroup(pgid).stream().filter(p -> {
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
        assertThat(TestHost.eventually(() -> !TestHost.alive(sleeper))).as("background sleeper %d", sleeper).isTrue();
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
    void mgs2005IsShownOnceAcrossFiftyRunsOfOneInvocation() {
        t.mode("best-effort");
        AtomicLong sinkSaw = new AtomicLong();
        Consumer<RunEvent> sink = e -> {
            if (e instanceof RunEvent.Diag d && d.diagnostic().code() == Code.MGS2005) {
                sinkSaw.incrementAndGet();
            }
        };
        Orchestrator o = Orchestrator.builder(t.host()).probe(LandlockProbe.fixed(0)).sink(sink).build();
        List<Run> runs = IntStream.range(0, 50).mapToObj(i -> o.submit(sh("exit 0"))).toList();
        Flux<RunEvent> all = Flux.fromIterable(runs).flatMap(Run::events);
        // Two subscribers to the same runs: each sees the warning once.
        for (int i = 0; i < 2; i++) {
            List<RunEvent> warnings = all.filter(e -> e instanceof RunEvent.Diag d && d.diagnostic().code() == Code.MGS2005)
                    .collectList().block(DEADLINE);
            assertThat(warnings).hasSize(1);
        }
        assertThat(runs).allSatisfy(r -> assertThat(r.result().block(DEADLINE).status()).isZero());
        assertThat(sinkSaw).hasValue(1);
    }

    @Test
    void aNestedMagusNeverShowsMgs2005() {
        t.mode("best-effort");
        t.env.put("MAGUS_RUN_ID", "parent-1");
        t.env.put("MAGUS_SANDBOX", "best-effort");
        Orchestrator o = t.orchestrator(LandlockProbe.fixed(0));
        List<Run> runs = IntStream.range(0, 50).mapToObj(i -> o.submit(sh("exit 0"))).toList();
        List<Code> seen = Flux.fromIterable(runs).flatMap(Run::events)
                .filter(e -> e instanceof RunEvent.Diag).map(e -> ((RunEvent.Diag) e).diagnostic().code())
                .collectList().block(DEADLINE);
        assertThat(seen).doesNotContain(Code.MGS2005);
        assertThat(runs).allSatisfy(r -> assertThat(r.result().block(DEADLINE).status()).isZero());
    }

    @Test
    void manyConcurrentChattyRunsAllFinish() {
        // More runs than a capped pool has threads, each writing more than a pipe holds: every
        // one needs its readers running while its own wait holds a thread.
        int n = Runtime.getRuntime().availableProcessors() * 10 + 10;
        Orchestrator o = t.orchestrator();
        List<Run> runs = IntStream.range(0, n).mapToObj(i -> o.submit(sh("head -c 300000 /dev/zero | tr '\\0' y | fold -w 99"))).toList();
        for (Run r : runs) {
            StepVerifier.create(r.result()).assertNext(x -> assertThat(x.status()).isZero()).expectComplete().verify(DEADLINE);
            assertThat(lines(events(r), RunEvent.Stream.STDOUT)).hasSize(300000 / 99 + 1);
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
