package dev.magus.telemetry.meters;

import dev.magus.events.Code;
import dev.magus.events.DetailKey;
import dev.magus.events.Diagnostic;
import dev.magus.events.RunEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * Feeds the {@link MagusMeter}s from run events. Safe to share between runs and threads.
 *
 * <p>Outcome and mode of {@code magus.runs} come from the events: the mode from
 * {@link RunEvent.Started#mode()} (one of the three spellings of the typed mode), the outcome
 * as {@link Outcome} documents. A run refused before spawn has no Started and so no mode: its
 * mode tag is {@value #UNKNOWN_MODE}.
 *
 * <p>{@link #accept} sees events only, so it records a run at its Exited. A stream handed
 * to {@link #subscribe} also ends the runs it left open: completion records them as
 * cancelled, an error as failed (refused when they never started). Disposing the returned
 * subscription records nothing: the sink went away, not the run.
 */
public final class MetricsSink implements Consumer<RunEvent> {
    /** The mode tag of a run that never started, so whose mode the events never told. */
    public static final String UNKNOWN_MODE = "unknown";

    private final MeterRegistry registry;
    private final Clock clock;
    private final Tracker shared = new Tracker();
    private final AtomicInteger abi = new AtomicInteger();
    private final AtomicBoolean abiRegistered = new AtomicBoolean();

    public MetricsSink(MeterRegistry registry) {
        this(registry, Clock.systemUTC());
    }

    /** @param clock measures how long a run had been going when its stream ended without Exited */
    public MetricsSink(MeterRegistry registry, Clock clock) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public void accept(RunEvent event) {
        shared.on(event);
    }

    /** Records every event of {@code events}, and on its end the runs it left open. */
    public Disposable subscribe(Flux<RunEvent> events) {
        Tracker tracker = new Tracker();
        return events.subscribe(tracker::on, error -> tracker.end(Outcome.FAILED), () -> tracker.end(Outcome.CANCELLED));
    }

    /** Sets {@code magus.landlock.abi}: the probed ABI, 0 when the host has no Landlock. */
    public void landlockAbi(int version) {
        if (version < 0) {
            throw new IllegalArgumentException("Landlock ABI cannot be negative: " + version);
        }
        abi.set(version);
        if (abiRegistered.compareAndSet(false, true)) {
            Gauge.builder(MagusMeter.LANDLOCK_ABI.meterName(), abi, AtomicInteger::get)
                    .description(MagusMeter.LANDLOCK_ABI.description())
                    .strongReference(true)
                    .register(registry);
        }
    }

    /** A {@code magus.runs} timer's tags. */
    private record RunKey(Outcome outcome, String mode) {
    }

    /** A {@code magus.diagnostics} counter's tags. */
    private record DiagnosticKey(Code code, String layer) {
    }

    /**
     * The meters this sink registered, by their tags, so a run or diagnostic does not register
     * again. The registry hands back the meter it already holds for the same name and tags, so
     * the one kept here is that same meter; magus never removes a meter from its registry. The
     * tags are a few enum values and mode spellings, so these maps stay small.
     */
    private final Map<RunKey, Timer> runTimers = new ConcurrentHashMap<>();
    private final Map<DiagnosticKey, Counter> diagnosticCounters = new ConcurrentHashMap<>();

    private void recordRun(Outcome outcome, String mode, Duration duration) {
        runTimers.computeIfAbsent(new RunKey(outcome, mode), k -> Timer.builder(MagusMeter.RUNS.meterName())
                .description(MagusMeter.RUNS.description())
                .tag("outcome", k.outcome().tag())
                .tag("mode", k.mode())
                .register(registry))
                .record(duration.isNegative() ? Duration.ZERO : duration);
    }

    private void recordDiagnostic(Diagnostic d) {
        diagnosticCounters.computeIfAbsent(new DiagnosticKey(d.code(), d.layer().label()),
                k -> Counter.builder(MagusMeter.DIAGNOSTICS.meterName())
                        .description(MagusMeter.DIAGNOSTICS.description())
                        .baseUnit(MagusMeter.DIAGNOSTICS.baseUnit())
                        .tag("code", k.code().name())
                        .tag("layer", k.layer())
                        .register(registry))
                .increment();
        if (d.code() == Code.MGS2003) {
            d.count(DetailKey.DROPPED).ifPresent(n -> DistributionSummary.builder(MagusMeter.ENV_DROPPED.meterName())
                    .description(MagusMeter.ENV_DROPPED.description())
                    .baseUnit(MagusMeter.ENV_DROPPED.baseUnit())
                    .register(registry)
                    .record(n));
        }
    }

    /** Runs seen but not yet exited, keyed by run id; empty Optional for a run not (yet) started. */
    private final class Tracker {
        private final Map<String, Optional<RunEvent.Started>> open = new ConcurrentHashMap<>();

        void on(RunEvent event) {
            if (event instanceof RunEvent.Started s) {
                open.put(s.runId(), Optional.of(s));
            } else if (event instanceof RunEvent.Diag d) {
                open.putIfAbsent(d.runId(), Optional.empty());
                recordDiagnostic(d.diagnostic());
            } else if (event instanceof RunEvent.Exited x) {
                Optional<RunEvent.Started> started = open.remove(x.runId());
                boolean wasStarted = started != null && started.isPresent();
                String mode = wasStarted ? started.get().mode().spelling() : UNKNOWN_MODE;
                recordRun(Outcome.of(wasStarted, x), mode, x.duration());
            }
            // Output lines carry nothing the meters count.
        }

        void end(Outcome ifStarted) {
            for (String runId : Set.copyOf(open.keySet())) {
                Optional<RunEvent.Started> started = open.remove(runId);
                if (started == null) {
                    continue;
                }
                if (started.isPresent()) {
                    RunEvent.Started s = started.get();
                    recordRun(ifStarted, s.mode().spelling(), Duration.between(s.at(), clock.instant()));
                } else {
                    recordRun(Outcome.REFUSED, UNKNOWN_MODE, Duration.ZERO);
                }
            }
        }
    }
}
