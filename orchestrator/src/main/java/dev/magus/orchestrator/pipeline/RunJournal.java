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
 * <p>Buffer policy: a window over the child's output. A subscriber receives every event from
 * the moment it subscribes, however far behind it falls: each live subscriber has a queue of
 * its own (a {@link FluxSink} buffering what it has not requested yet), so its backlog is what
 * it costs, and only while it lags. For subscribers still to come, every event that is not
 * output is kept (the start, each diagnostic, the exit: what the command line and the server
 * read from a run) and of the output lines only the last {@value #HISTORY}, so a run that prints
 * a million lines costs the journal what one that prints {@value #HISTORY} does. A subscriber
 * that arrives after more than {@value #HISTORY} lines misses the earlier lines and nothing
 * else; the bytes themselves never went through the journal ({@link
 * dev.magus.orchestrator.run.Passthrough}). A caller that needs every line subscribes before the
 * run starts (a {@link dev.magus.orchestrator.run.Submission}'s observer, or the orchestrator
 * builder's sinks). (Reactor's size-bound replay sink is not used: a subscriber that falls more than its
 * limit behind skips what it has not read.) The pipe readers hand lines over without waiting
 * for subscribers, so the child never blocks on a slow subscriber.
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
