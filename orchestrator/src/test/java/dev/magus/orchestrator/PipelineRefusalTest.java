package dev.magus.orchestrator;

import static dev.magus.orchestrator.TestHost.DEADLINE;
import static dev.magus.orchestrator.TestHost.codes;
import static dev.magus.orchestrator.TestHost.events;
import static dev.magus.orchestrator.TestHost.lines;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.RunEvent;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.launch.Confinement;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.RunResult;
import dev.magus.events.Mode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/**
 * The pipeline's refusals and the order of a run's events, which need no kernel layer: they
 * run on every Linux host, through a {@link RecordingSpawner} (the real launcher behind it where
 * Landlock is, a fake that confines nothing where it is not), which also says that a refused run
 * never reached the spawn. {@code -Dmagus.test.landlock=absent} plays a host without Landlock.
 * The three tests that start a child still need Linux; the refusals need nothing.
 */
class PipelineRefusalTest {
    @TempDir
    Path root;
    TestHost t;
    RecordingSpawner spawner;

    @BeforeEach
    void setUp() {
        t = new TestHost(root).mode("required");
        // Something for the scrub to drop, so MGS2003 is part of every run.
        t.env.put("MAGUS_TEST_DROPPED", "x");
        spawner = RecordingSpawner.forThisHost();
    }

    private Orchestrator orchestrator() {
        return t.orchestrator(TestHost.probe(), spawner);
    }

    private RunRequest sh(String script) {
        return RunRequest.builder(t.workspace, "sh", "-c", script).build();
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
        assertThat(spawner.calls()).as("nothing reached the spawn").isEmpty();
        assertThat(t.tempBase).as("no private temp dir left behind").isEmptyDirectory();
    }

    private RunRequest touch() {
        return sh("touch spawned");
    }

    /**
     * Which host this class plays, said on the console: the build runs it twice, once as the
     * host is and once with {@code -Dmagus.test.landlock=absent} (orchestrator/pom.xml,
     * execution refusals-without-landlock), where the probe must say no Landlock and the
     * spawner must be the fake.
     */
    @Test
    void theProbeAndTheSpawnerAreThoseOfTheHostPlayed() {
        boolean absent = "absent".equals(System.getProperty(TestHost.LANDLOCK_PROPERTY));
        System.out.println("PipelineRefusalTest: Landlock " + (absent ? "played absent (ABI 0, fake spawner)"
                : "as this host has it (ABI " + TestHost.probe().abi() + ")"));
        if (absent) {
            assertThat(TestHost.probe().abi()).isZero();
            assertThat(spawner.confinesWithKernel()).isFalse();
        } else {
            assertThat(spawner.confinesWithKernel()).isEqualTo(TestHost.landlock());
        }
    }

    @Test
    void aBadModeInMagusYamlIsRefusedWithMgs2004() {
        t.mode("strict");
        assertRefused(orchestrator().submit(touch()), Code.MGS2004, 125);
    }

    @Test
    void aBadMagusSandboxValueIsRefusedWithMgs2004() {
        t.env.put("MAGUS_SANDBOX", "mostly");
        assertRefused(orchestrator().submit(touch()), Code.MGS2004, 125);
    }

    @Test
    void aMalformedAllowEntryIsRefusedWithMgs2004() {
        t.yaml("sandbox:\n  mode: required\n  allow:\n    - path: /opt\n      mode: rwz\n");
        assertRefused(orchestrator().submit(touch()), Code.MGS2004, 125);
    }

    @Test
    void aRequestWeakerThanTheFloorIsRefusedWithMgs2010() {
        t.env.put("MAGUS_SANDBOX", "required");
        RunRequest req = RunRequest.builder(t.workspace, "sh", "-c", "touch spawned").sandbox(Mode.BEST_EFFORT).build();
        assertRefused(orchestrator().submit(req), Code.MGS2010, 125);
    }

    @Test
    void requiredOnAnAbiBelowThreeIsRefusedWithMgs2012() {
        assertRefused(t.orchestrator(LandlockProbe.fixed(2), spawner).submit(touch()), Code.MGS2012, 125);
    }

    @Test
    void aBinaryOutsideEveryExecRuleIsRefusedWithMgs2007() {
        Path dropped = TestHost.script(t.home.resolve("Downloads"), "payload", "touch " + t.workspace.resolve("spawned"));
        assertRefused(orchestrator().submit(RunRequest.builder(t.workspace, dropped.toString()).build()), Code.MGS2007, 126);
    }

    @Test
    void anUnknownCommandEndsWith127AndNeverStarts() {
        Run run = orchestrator().submit(RunRequest.builder(t.workspace, "magus-test-no-such-command").build());
        List<RunEvent> events = events(run);
        assertThat(events).noneMatch(e -> e instanceof RunEvent.Started);
        assertThat(lines(events, RunEvent.Stream.STDERR)).anySatisfy(l -> assertThat(l).contains("command not found"));
        assertThat(run.result().block(DEADLINE).status()).isEqualTo(127);
        assertThat(events.get(events.size() - 1)).isInstanceOf(RunEvent.Exited.class);
    }

    @Test
    void withoutTheKernelLayerStartedComesFirstThenLinesAndDiagnosticsThenExitedOnce() {
        TestHost.assumeChildren();
        t.mode("best-effort");
        Run run = t.orchestrator(LandlockProbe.fixed(0), spawner).submit(sh("echo out; echo err >&2; exit 3"));
        List<RunEvent> middle = new ArrayList<>();
        StepVerifier.create(run.events())
                .assertNext(e -> {
                    assertThat(e).isInstanceOf(RunEvent.Started.class);
                    assertThat(((RunEvent.Started) e).mode()).isEqualTo(Mode.BEST_EFFORT);
                })
                .recordWith(() -> middle)
                .thenConsumeWhile(e -> !(e instanceof RunEvent.Exited))
                .assertNext(e -> assertThat(((RunEvent.Exited) e).status()).isEqualTo(3))
                .expectComplete()
                .verify(DEADLINE);
        List<RunEvent> between = middle.subList(0, middle.size() - 1);
        assertThat(between).noneMatch(e -> e instanceof RunEvent.Started || e instanceof RunEvent.Exited);
        assertThat(lines(between, RunEvent.Stream.STDOUT)).containsExactly("out");
        assertThat(lines(between, RunEvent.Stream.STDERR)).containsExactly("err");
        assertThat(codes(between)).containsExactlyInAnyOrder(Code.MGS2003, Code.MGS2005);
        assertThat(run.result().block(DEADLINE).status()).isEqualTo(3);

        assertThat(spawner.calls()).singleElement().satisfies(call -> {
            assertThat(call.confinement()).isInstanceOf(Confinement.None.class);
            assertThat(call.confinement().mode()).isEqualTo(Mode.BEST_EFFORT);
            assertThat(call.request().argv()).containsExactly("sh", "-c", "echo out; echo err >&2; exit 3");
            assertThat(call.request().workingDirectory()).isEqualTo(t.workspace);
            assertThat(call.request().environment()).containsEntry("MAGUS_SANDBOX", "best-effort")
                    .doesNotContainKey("MAGUS_TEST_DROPPED");
            // The run's private temp dir, removed since.
            assertThat(call.request().environment().get("TMPDIR")).startsWith(t.tempBase + "/");
        });
    }

    @Test
    void mgs2005IsShownOnceAcrossFiftyRunsOfOneInvocation() {
        TestHost.assumeChildren();
        t.mode("best-effort");
        AtomicLong sinkSaw = new AtomicLong();
        Consumer<RunEvent> sink = e -> {
            if (e instanceof RunEvent.Diag d && d.diagnostic().code() == Code.MGS2005) {
                sinkSaw.incrementAndGet();
            }
        };
        try (Orchestrator o = Orchestrator.builder(t.host()).probe(LandlockProbe.fixed(0)).spawner(spawner).sink(sink).build()) {
            List<Run> runs = IntStream.range(0, 50).mapToObj(i -> o.submit(sh("exit 0"))).toList();
            Flux<RunEvent> all = Flux.fromIterable(runs).flatMap(Run::events);
            // Two subscribers to the same runs: each sees the warning once.
            for (int i = 0; i < 2; i++) {
                List<RunEvent> warnings = all.filter(e -> e instanceof RunEvent.Diag d && d.diagnostic().code() == Code.MGS2005)
                        .collectList().block(DEADLINE);
                assertThat(warnings).hasSize(1);
            }
            assertThat(runs).allSatisfy(r -> assertThat(r.result().block(DEADLINE).status()).isZero());
        }
        assertThat(sinkSaw).hasValue(1);
    }

    @Test
    void aNestedMagusNeverShowsMgs2005() {
        TestHost.assumeChildren();
        t.mode("best-effort");
        t.env.put("MAGUS_RUN_ID", "parent-1");
        t.env.put("MAGUS_SANDBOX", "best-effort");
        Orchestrator o = t.orchestrator(LandlockProbe.fixed(0), spawner);
        List<Run> runs = IntStream.range(0, 50).mapToObj(i -> o.submit(sh("exit 0"))).toList();
        List<Code> seen = Flux.fromIterable(runs).flatMap(Run::events)
                .filter(e -> e instanceof RunEvent.Diag).map(e -> ((RunEvent.Diag) e).diagnostic().code())
                .collectList().block(DEADLINE);
        assertThat(seen).doesNotContain(Code.MGS2005);
        assertThat(runs).allSatisfy(r -> assertThat(r.result().block(DEADLINE).status()).isZero());
    }
}
