package dev.magus.orchestrator.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * ChildStreams' waits (the kernel denials, the drained pipes): done, timed out, or failed, and
 * never a refusal taken for a timeout.
 */
class ChildStreamsWithinTest {
    private static final Duration SHORT = Duration.ofMillis(50);

    @Test
    void doneInTimeIsTrueAndTimedOutIsFalse() {
        assertThat(ChildStreams.within(Mono.empty(), SHORT)).isTrue();
        assertThat(ChildStreams.within(Mono.delay(Duration.ofMillis(5)).then(), Duration.ofSeconds(10))).isTrue();
        assertThat(ChildStreams.within(Mono.never(), SHORT)).isFalse();
    }

    @Test
    void anErrorIsThrownNotTakenForATimeout() {
        assertThatThrownBy(() -> ChildStreams.within(Mono.error(new IllegalStateException("boom")), SHORT))
                .isInstanceOf(IllegalStateException.class).hasMessage("boom");
    }

    /** block(Duration) refuses a non-blocking thread with the same exception type as its timeout; this wait does not. */
    @Test
    void onANonBlockingThreadItStillWaitsForTheDenials() {
        Boolean waited = Mono.fromCallable(() -> ChildStreams.within(Mono.delay(Duration.ofMillis(20)).then(), Duration.ofSeconds(10)))
                .subscribeOn(Schedulers.parallel()).toFuture().join();
        assertThat(waited).isTrue();
        Boolean timedOut = Mono.fromCallable(() -> ChildStreams.within(Mono.never(), SHORT))
                .subscribeOn(Schedulers.parallel()).toFuture().join();
        assertThat(timedOut).isFalse();
    }
}
