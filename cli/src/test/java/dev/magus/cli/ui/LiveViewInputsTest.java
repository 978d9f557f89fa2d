package dev.magus.cli.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.RunEvent;
import dev.magus.events.Mode;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

class LiveViewInputsTest {
    static final Clock CLOCK = Clock.fixed(ViewReducerTest.T0, ZoneOffset.UTC);
    static final RunEvent STARTED = new RunEvent.Started("r", ViewReducerTest.T0, List.of("x"), Mode.OFF, 1);
    static final RunEvent EXITED = new RunEvent.Exited("r", ViewReducerTest.T0, 0, 0, Duration.ofMillis(1100));

    @Test
    void ticksEveryPeriodWhileTheRunGoesAndStopWithItsEvents() {
        StepVerifier.withVirtualTime(() -> LiveView.inputs(
                        Flux.concat(Mono.just(STARTED), Mono.delay(Duration.ofMillis(1100)).thenReturn(EXITED)),
                        Duration.ofMillis(200), VirtualTimeScheduler.get(), CLOCK))
                .expectNext(new LiveView.Input.Event(STARTED))
                .thenAwait(Duration.ofMillis(1000))
                .expectNextSequence(java.util.Collections.nCopies(5, new LiveView.Input.Tick(ViewReducerTest.T0)))
                .thenAwait(Duration.ofMillis(100))
                .expectNext(new LiveView.Input.Event(EXITED))
                .expectComplete()
                .verify(Duration.ofSeconds(5));
    }

    @Test
    void aRunThatFailsEndsTheTicksWithItsError() {
        StepVerifier.withVirtualTime(() -> LiveView.inputs(
                        Flux.concat(Mono.just(STARTED), Mono.delay(Duration.ofMillis(300)).then(Mono.error(new IllegalStateException("boom")))),
                        Duration.ofMillis(200), VirtualTimeScheduler.get(), CLOCK))
                .expectNext(new LiveView.Input.Event(STARTED))
                .thenAwait(Duration.ofMillis(300))
                .expectNext(new LiveView.Input.Tick(ViewReducerTest.T0))
                .expectErrorSatisfies(e -> assertThat(e).hasMessage("boom"))
                .verify(Duration.ofSeconds(5));
    }
}
