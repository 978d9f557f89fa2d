package dev.magus.telemetry.dedupe;

import dev.magus.events.Code;
import dev.magus.events.RunEvent;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import reactor.core.publisher.Flux;

/**
 * MGS2005 once per top-level invocation, never from a nested magus: a Reactor operator,
 * built once per invocation and applied to every run's events
 * ({@code run.events().transform(once)}).
 *
 * <p>The first run of the invocation whose stream carries an MGS2005 becomes its one
 * carrier; an MGS2005 of any other run is dropped. The decision belongs to the run, not the
 * subscription, so whether the operator sits upstream of a shared stream or is applied by
 * each of several subscribers (terminal, log, NDJSON, meters), every subscriber sees the
 * warning once, from the same run, and no second run shows it. Within the carrier run a
 * repeated MGS2005 (the check runs at each child) is dropped too. With {@code nested}
 * nothing MGS2005 passes at all: the top-level magus has already said it. Every other
 * event passes untouched and in order.
 */
public final class LandlockWarningOnce implements Function<Flux<RunEvent>, Flux<RunEvent>> {

    private final boolean nested;
    // Empty until the first MGS2005 of the invocation; then the run that carries it.
    private final AtomicReference<String> carrier = new AtomicReference<>();

    private LandlockWarningOnce(boolean nested) {
        this.nested = nested;
    }

    /** A fresh operator for one invocation; {@code nested} suppresses MGS2005 entirely. */
    public static LandlockWarningOnce forInvocation(boolean nested) {
        return new LandlockWarningOnce(nested);
    }

    public boolean nested() {
        return nested;
    }

    @Override
    public Flux<RunEvent> apply(Flux<RunEvent> events) {
        return Flux.defer(() -> {
            // Per subscription: the carrier run's own repeats are dropped for each subscriber.
            AtomicBoolean shown = new AtomicBoolean();
            return events.filter(event -> admit(event, shown));
        });
    }

    private boolean admit(RunEvent event, AtomicBoolean shownToThisSubscriber) {
        if (!(event instanceof RunEvent.Diag d) || d.diagnostic().code() != Code.MGS2005) {
            return true;
        }
        if (nested) {
            return false;
        }
        carrier.compareAndSet(null, event.runId());
        return event.runId().equals(carrier.get()) && shownToThisSubscriber.compareAndSet(false, true);
    }
}
