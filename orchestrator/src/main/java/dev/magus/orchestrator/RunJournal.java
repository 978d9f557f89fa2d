package dev.magus.orchestrator;

import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunResult;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.RunEvent;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The record of one run: every event in order, replayed to each subscriber from the start,
 * and the result once it ends.
 *
 * <p>Buffer policy: events are kept in an unbounded replay buffer for the life of the run
 * object. The pipe readers hand lines to it without waiting for subscribers, so the child
 * never blocks on a slow subscriber and no subscriber ever misses the start or the exit.
 * The cost is memory proportional to the run's output; a caller that runs chatty commands
 * for a long time and keeps the {@link Run} should subscribe and drop it.
 *
 * <p>This covers subscribers that apply back-pressure through Reactor's requests (or
 * {@code publishOn}/{@code delayElements}). A subscriber that blocks inside {@code onNext}
 * with an unbounded request is called on the emitting pipe reader and blocks it, and so, once
 * the pipe fills, the child: as a shell pipeline into a stalled reader would. The command
 * line's terminal printer relies on that; a sink that may stall must hop threads itself.
 *
 * <p>Emission is serialized here because the stdout and stderr readers, the spawner and a
 * cancelling caller emit from different threads.
 */
final class RunJournal {
    private final String runId;
    private final Clock clock;
    private final Instant start;
    private final Sinks.Many<RunEvent> events = Sinks.many().replay().all();
    private final Sinks.One<RunResult> result = Sinks.one();
    private final Map<Code, Long> counts = new EnumMap<>(Code.class);
    private boolean ended;
    /** What every diagnostic goes through before it is emitted: a lease names its job, and its trail records it. */
    private UnaryOperator<Diagnostic> diagnostics = UnaryOperator.identity();

    RunJournal(String runId, Clock clock) {
        this.runId = runId;
        this.clock = clock;
        this.start = clock.instant();
    }

    String runId() {
        return runId;
    }

    Instant now() {
        return clock.instant();
    }

    Flux<RunEvent> events() {
        return events.asFlux();
    }

    Mono<RunResult> result() {
        return result.asMono();
    }

    synchronized boolean ended() {
        return ended;
    }

    /** Sets what each diagnostic emitted from now on goes through (see {@link RunStages}). */
    synchronized void observeDiagnostics(UnaryOperator<Diagnostic> observer) {
        this.diagnostics = observer;
    }

    synchronized void emit(RunEvent event) {
        if (ended) {
            return;
        }
        if (event instanceof RunEvent.Diag d) {
            Diagnostic seen = diagnostics.apply(d.diagnostic());
            if (seen != d.diagnostic()) {
                event = new RunEvent.Diag(d.runId(), d.at(), seen);
            }
            counts.merge(seen.code(), 1L, Long::sum);
        }
        events.tryEmitNext(event).orThrow();
    }

    void diagnostic(Diagnostic d) {
        emit(new RunEvent.Diag(runId, now(), d));
    }

    void output(RunEvent.Stream stream, String line) {
        emit(new RunEvent.Output(runId, now(), stream, line));
    }

    /** Emits the exit event, completes the stream and the result. Only the first call counts. */
    synchronized void exit(int status, int signal) {
        if (ended) {
            return;
        }
        Instant at = now();
        Duration took = Duration.between(start, at);
        events.tryEmitNext(new RunEvent.Exited(runId, at, status, signal, took)).orThrow();
        ended = true;
        events.tryEmitComplete().orThrow();
        result.tryEmitValue(new RunResult(status, signal, took, counts)).orThrow();
    }
}
