package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.RunEvent;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunResult;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The command line's side of "signals are never lost", without real signals: what arrives
 * while {@code run} holds them reaches the run, in order, once it exists. (The state before
 * {@link Signals#hold()} exits the JVM, so only {@link SignalsIT} exercises it, on a real
 * bin/magus.)
 */
class SignalsTest {
    /** A run that records what it was sent. */
    static final class Recording implements Run {
        final List<Integer> got = new CopyOnWriteArrayList<>();

        @Override
        public String id() {
            return "recording";
        }

        @Override
        public Flux<RunEvent> events() {
            return Flux.empty();
        }

        @Override
        public Mono<RunResult> result() {
            return Mono.empty();
        }

        @Override
        public void cancel() {
            got.add(9);
        }

        @Override
        public void signal(int signal) {
            got.add(signal);
        }
    }

    @Test
    void signalsHeldBeforeTheRunExistsReachItInOrderAndLaterOnesFollow() {
        assertThat(Signals.hold()).isZero();
        Signals.on(2);
        Signals.on(15);
        Recording run = new Recording();
        assertThat(run.got).isEmpty();

        Signals.forward(run);
        assertThat(run.got).containsExactly(2, 15);
        Signals.on(1);
        assertThat(run.got).containsExactly(2, 15, 1);
    }

    @Test
    void aNewHoldForgetsThePreviousRun() {
        assertThat(Signals.hold()).isZero();
        Recording first = new Recording();
        Signals.forward(first);
        assertThat(Signals.hold()).isZero();
        Signals.on(15);
        assertThat(first.got).isEmpty();
        Recording second = new Recording();
        Signals.forward(second);
        assertThat(second.got).containsExactly(15);
    }
}
