package dev.magus.telemetry.dedupe;

import dev.magus.events.MagusEnv;
import static dev.magus.telemetry.TestEvents.diag;
import static dev.magus.telemetry.TestEvents.exited;
import static dev.magus.telemetry.TestEvents.landlockWarning;
import static dev.magus.telemetry.TestEvents.out;
import static dev.magus.telemetry.TestEvents.started;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Mode;
import dev.magus.events.Layer;
import dev.magus.events.RunEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

class LandlockWarningOnceTest {

    /** A run as best-effort on a host without Landlock streams it: MGS2005 at policy time and again at its child. */
    private static Flux<RunEvent> run(int i) {
        String id = "run-" + i;
        return Flux.just(landlockWarning(id), started(id, Mode.BEST_EFFORT), diag(id, Code.MGS2003, Layer.POLICY, ""),
                landlockWarning(id), out(id, "ok"), diag(id, Code.MGS2001, Layer.BINDING, "/home/u/.ssh/id_rsa"),
                exited(id, 0, 0));
    }

    private static final Predicate<RunEvent> IS_2005 =
            e -> e instanceof RunEvent.Diag d && d.diagnostic().code() == Code.MGS2005;

    @Test
    void fiftyRunsShowOneWarningAndEverythingElse() {
        LandlockWarningOnce once = LandlockWarningOnce.forInvocation(false);

        StepVerifier.create(Flux.range(0, 50).concatMap(i -> run(i).transform(once)).filter(IS_2005))
                .expectNextMatches(e -> e.runId().equals("run-0"))
                .verifyComplete();
        // Other codes and events are untouched: 6 per run survive, in order.
        StepVerifier.create(run(7).transform(once))
                .expectNextMatches(e -> e instanceof RunEvent.Started)
                .expectNextMatches(e -> e instanceof RunEvent.Diag d && d.diagnostic().code() == Code.MGS2003)
                .expectNextMatches(e -> e instanceof RunEvent.Output)
                .expectNextMatches(e -> e instanceof RunEvent.Diag d && d.diagnostic().code() == Code.MGS2001)
                .expectNextMatches(e -> e instanceof RunEvent.Exited)
                .verifyComplete();
    }

    @Test
    void concurrentRunsOnManyThreadsElectOneCarrier() {
        LandlockWarningOnce once = LandlockWarningOnce.forInvocation(false);

        Flux<RunEvent> all = Flux.range(0, 50)
                .flatMap(i -> run(i).subscribeOn(Schedulers.parallel()).transform(once), 50);

        StepVerifier.create(all.collectList())
                .assertNext(events -> {
                    assertThat(events.stream().filter(IS_2005).count()).isEqualTo(1);
                    assertThat(events.stream().filter(IS_2005.negate()).count()).isEqualTo(50 * 5);
                    Map<Code, Long> codes = events.stream().filter(e -> e instanceof RunEvent.Diag)
                            .collect(Collectors.groupingBy(e -> ((RunEvent.Diag) e).diagnostic().code(), Collectors.counting()));
                    assertThat(codes).containsEntry(Code.MGS2003, 50L).containsEntry(Code.MGS2001, 50L)
                            .containsEntry(Code.MGS2005, 1L);
                })
                .verifyComplete();
    }

    @Test
    void severalSubscribersEachSeeTheSameOneWarning() {
        LandlockWarningOnce once = LandlockWarningOnce.forInvocation(false);
        List<Flux<RunEvent>> runs = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            // Each subscriber (terminal, log, NDJSON, meters) applies the operator itself.
            runs.add(run(i).cache());
        }

        for (int subscriber = 0; subscriber < 4; subscriber++) {
            StepVerifier.create(Flux.concat(runs).transform(once).filter(IS_2005))
                    .expectNextMatches(e -> e.runId().equals("run-0"))
                    .verifyComplete();
        }
    }

    @Test
    void upstreamOfASharedStreamOnlyOneWarningPassesTheOperator() {
        LandlockWarningOnce once = LandlockWarningOnce.forInvocation(false);
        AtomicInteger passed = new AtomicInteger();
        Flux<RunEvent> shared = Flux.range(0, 50).concatMap(i -> run(i).transform(once))
                .doOnNext(e -> {
                    if (IS_2005.test(e)) {
                        passed.incrementAndGet();
                    }
                })
                .replay().autoConnect(3);

        List<StepVerifier> subscribers = new ArrayList<>();
        for (int s = 0; s < 3; s++) {
            subscribers.add(StepVerifier.create(shared.filter(IS_2005)).expectNextCount(1).expectComplete().verifyLater());
        }
        subscribers.forEach(StepVerifier::verify);
        assertThat(passed).hasValue(1);
    }

    @Test
    void aNestedMagusShowsNoWarningAtAll() {
        LandlockWarningOnce nested = LandlockWarningOnce.forInvocation(MagusEnv.nested(Map.of(MagusEnv.RUN_ID, "run-parent")));
        assertThat(nested.nested()).isTrue();

        StepVerifier.create(Flux.range(0, 50).concatMap(i -> run(i).transform(nested)))
                .expectNextCount(50 * 5)
                .verifyComplete();
        StepVerifier.create(Flux.range(0, 50).concatMap(i -> run(i).transform(nested)).filter(IS_2005))
                .verifyComplete();
    }

    @Test
    void aTopLevelEnvironmentIsNotNested() {
        assertThat(LandlockWarningOnce.forInvocation(MagusEnv.nested(Map.of("PATH", "/usr/bin"))).nested()).isFalse();
        // The same rule as the pipeline's (MagusEnv.nested): an empty MAGUS_RUN_ID is unset.
        assertThat(LandlockWarningOnce.forInvocation(MagusEnv.nested(Map.of(MagusEnv.RUN_ID, ""))).nested()).isFalse();
    }

    @Test
    void eachInvocationHasItsOwnOperator() {
        LandlockWarningOnce first = LandlockWarningOnce.forInvocation(false);
        LandlockWarningOnce second = LandlockWarningOnce.forInvocation(false);

        StepVerifier.create(run(1).transform(first).filter(IS_2005)).expectNextCount(1).verifyComplete();
        StepVerifier.create(run(2).transform(first).filter(IS_2005)).verifyComplete();
        StepVerifier.create(run(2).transform(second).filter(IS_2005)).expectNextCount(1).verifyComplete();
    }
}
