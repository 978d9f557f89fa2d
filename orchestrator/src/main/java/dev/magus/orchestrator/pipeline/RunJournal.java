package dev.magus.orchestrator.pipeline;

import dev.magus.orchestrator.run.DenialStatus;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunResult;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.RunEvent;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The record of one run: every event in order to each subscriber, and the result once it ends.
 *
 * <p>A live subscriber gets every event from the moment it subscribes, through a queue of its
 * own ({@link FluxSink}), however far behind it falls. For subscribers still to come, every
 * event but output is kept, and of the output lines only the last {@value #HISTORY}, so the
 * journal's cost does not grow with the output (the bytes never go through it: {@link
 * dev.magus.orchestrator.run.Passthrough}); a caller needing every line subscribes before the
 * run starts. Reactor's size-bound replay sink would make a lagging subscriber skip events.
 *
 * <p>The pipe readers never wait for subscribers' requests; a subscriber that blocks inside
 * {@code onNext} blocks the reader, and so the child, as a stalled shell pipeline would (the
 * terminal printer relies on that). Emission is serialized: several threads emit.
 */
public final class RunJournal {
    /** How many of the latest output lines are kept for a subscriber still to come. */
    public static final int HISTORY = 2048;

    private final String runId;
    private final Clock clock;
    private final Instant start;
    /** For subscribers still to come, each with its place in the run: every event but output; guarded by this. */
    private final List<Numbered> kept = new java.util.ArrayList<>();
    /** ... and the last {@link #HISTORY} output lines. */
    private final ArrayDeque<Numbered> lastLines = new ArrayDeque<>();
    private long sequence;
    /** The subscribers there now; copied on write, as one may leave while an event is handed out. */
    private final List<FluxSink<RunEvent>> live = new CopyOnWriteArrayList<>();
    private final Sinks.One<RunResult> result = Sinks.one();
    private final Map<Code, Long> counts = new EnumMap<>(Code.class);
    private boolean ended;
    /** {@code --fail-on-denial}, and whether a denial it fails on was emitted; guarded by this. */
    private boolean failOnDenial;
    private boolean denied;
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

    /** The window so far, then every event from now on; completes with the run. */
    Flux<RunEvent> events() {
        return Flux.create(sink -> {
            synchronized (this) {
                replay(sink);
                if (ended) {
                    sink.complete();
                    return;
                }
                live.add(sink);
                sink.onDispose(() -> live.remove(sink));
            }
        }, FluxSink.OverflowStrategy.BUFFER);
    }

    private record Numbered(long n, RunEvent event) {
    }

    /** Under the lock: what is kept, merged back into the run's order. */
    private void replay(FluxSink<RunEvent> sink) {
        java.util.Iterator<Numbered> a = kept.iterator();
        java.util.Iterator<Numbered> b = lastLines.iterator();
        Numbered x = a.hasNext() ? a.next() : null;
        Numbered y = b.hasNext() ? b.next() : null;
        while (x != null || y != null) {
            if (y == null || (x != null && x.n() < y.n())) {
                sink.next(x.event());
                x = a.hasNext() ? a.next() : null;
            } else {
                sink.next(y.event());
                y = b.hasNext() ? b.next() : null;
            }
        }
    }

    /** Under the lock: kept (an output line in the window), and to every subscriber there now. */
    private void publish(RunEvent event) {
        Numbered n = new Numbered(sequence++, event);
        if (event instanceof RunEvent.Output) {
            lastLines.addLast(n);
            if (lastLines.size() > HISTORY) {
                lastLines.removeFirst();
            }
        } else {
            kept.add(n);
        }
        for (FluxSink<RunEvent> s : live) {
            s.next(event);
        }
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

    /** {@code --fail-on-denial}: a clean exit after a denial ({@link DenialStatus}) ends the run with its status. */
    public synchronized void failOnDenial(boolean fail) {
        this.failOnDenial = fail;
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
            denied |= DenialStatus.counts(seen);
        }
        publish(event);
    }

    void diagnostic(Diagnostic d) {
        emit(new RunEvent.Diag(runId, now(), d));
    }

    void output(RunEvent.Stream stream, String line) {
        emit(new RunEvent.Output(runId, now(), stream, line));
    }

    /** Emits the exit event, completes the stream and the result. Only the first call counts. */
    synchronized void exit(int childStatus, int signal) {
        if (ended) {
            return;
        }
        int status = DenialStatus.status(failOnDenial, denied, childStatus, signal);
        Instant at = now();
        Duration took = Duration.between(start, at);
        publish(new RunEvent.Exited(runId, at, status, signal, took));
        ended = true;
        for (FluxSink<RunEvent> s : live) {
            s.complete();
        }
        live.clear();
        result.tryEmitValue(new RunResult(status, signal, took, counts)).orThrow();
    }
}
