package dev.magus.landlock.denials.stream;

import dev.magus.events.DetailKey;
import dev.magus.events.Diagnostic;
import dev.magus.events.Operation;
import dev.magus.landlock.denials.audit.AuditDiagnostics;
import dev.magus.landlock.denials.audit.Blockers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * One diagnostic per kernel denial when both sources see it; the exact one (an audit record, a
 * supervisor's intercepted call) wins. Two reports are one denial with the same operation and
 * path, or when the audit record names the inferred path's parent: the kernel logs a create or
 * removal on the directory, the tool names the file (kept as {@code inferred_subject}).
 *
 * <p>An exact diagnostic is emitted at once, except one about a parent directory, which waits a
 * window for the tool's line naming the file. An inferred one always waits the window and is
 * dropped if its exact twin comes (a later twin is then dropped as a repeat), or if the exact
 * source reported the path with another operation (the words were misread). Pure state,
 * synchronised; {@link #merge} wires it between two Fluxes.
 */
public final class DenialMerger {
    /** The source of the supervisor's reports, exact like the audit stream's. */
    public static final String SUPERVISOR_SOURCE = "supervisor";

    private final List<Diagnostic> emitted = new ArrayList<>();
    private final List<Diagnostic> heldExact = new ArrayList<>();
    private final List<Diagnostic> heldInferred = new ArrayList<>();
    private final List<Diagnostic> absorbed = new ArrayList<>();

    /**
     * The exact and inferred denials of one run as one stream; completes when both complete
     * and nothing is held.
     *
     * @param window how long a report waits for its twin from the other source
     * @param timer  where the window's delays run
     */
    public static Flux<Diagnostic> merge(Flux<Diagnostic> exact, Flux<Diagnostic> inferred, Duration window,
            Scheduler timer) {
        Objects.requireNonNull(window, "window");
        return Flux.defer(() -> {
            DenialMerger state = new DenialMerger();
            Flux<Diagnostic> ex = exact.flatMap(d -> {
                if (state.holdExact(d)) {
                    return Mono.delay(window, timer).flatMap(t -> Mono.justOrEmpty(state.releaseExact(d)));
                }
                return Mono.justOrEmpty(state.exact(d));
            });
            Flux<Diagnostic> in = inferred
                    .doOnNext(state::hold)
                    .flatMap(d -> Mono.delay(window, timer).flatMap(t -> Mono.justOrEmpty(state.release(d))));
            return Flux.merge(ex, in);
        });
    }

    /** Whether an arriving exact diagnostic should wait for a report naming the file. */
    public synchronized boolean holdExact(Diagnostic e) {
        if (repeat(e) || !onParentDirectory(e) || emitted.stream().anyMatch(d -> sameReport(d, e))) {
            return false;
        }
        heldExact.add(e);
        return true;
    }

    /** The window of a held exact diagnostic ended: what to emit. */
    public synchronized Optional<Diagnostic> releaseExact(Diagnostic e) {
        heldExact.remove(e);
        return exact(e);
    }

    /** An exact denial, emitted now: empty when it repeats one already out. */
    public synchronized Optional<Diagnostic> exact(Diagnostic e) {
        if (repeat(e)) {
            // Another record of a denial already reported: one more occurrence, never a twin.
            return Optional.of(e);
        }
        if (e.details().containsKey(DetailKey.DECISION.key())) {
            // An approver's decision: each one is an event, the same access asked again included.
            emitted.add(e);
            return Optional.of(e);
        }
        for (Diagnostic d : emitted) {
            if (isExact(d) ? sameReport(d, e) : same(e, d)) {
                return Optional.empty();
            }
        }
        Diagnostic out = e;
        List<Diagnostic> twins = new ArrayList<>(absorbed);
        twins.addAll(heldInferred);
        for (Diagnostic i : twins) {
            if (same(e, i) && !i.subject().equals(e.subject())) {
                out = out.withDetail(DetailKey.INFERRED_SUBJECT, i.subject());
                break;
            }
        }
        emitted.add(out);
        return Optional.of(out);
    }

    /** An inferred denial arrived; it waits for {@link #release}. */
    public synchronized void hold(Diagnostic i) {
        heldInferred.add(i);
    }

    /** The window of an inferred denial ended: emit it unless an exact twin was seen. */
    public synchronized Optional<Diagnostic> release(Diagnostic i) {
        heldInferred.remove(i);
        if (repeat(i)) {
            // Counted by the exact source when it saw this denial; else this is the count.
            boolean exactSaw = emitted.stream().anyMatch(d -> isExact(d) && same(d, i))
                    || absorbed.stream().anyMatch(a -> sameReport(a, i)) || heldExact.stream().anyMatch(e -> same(e, i));
            return exactSaw ? Optional.empty() : Optional.of(i);
        }
        for (Diagnostic e : heldExact) {
            if (same(e, i)) {
                absorbed.add(i);
                return Optional.empty();
            }
        }
        for (Diagnostic d : emitted) {
            if (isExact(d) ? same(d, i) : sameReport(d, i)) {
                return Optional.empty();
            }
        }
        for (Diagnostic e : emitted) {
            if (isExact(e) && e.subject().equals(i.subject())) {
                // The kernel said what it refused on this path, and it is not what the tool's
                // words were read as (perl's "Can't open" of an append, a shell's redirection):
                // the exact report stands alone.
                return Optional.empty();
            }
        }
        emitted.add(i);
        return Optional.of(i);
    }

    /** Whether an exact and an inferred diagnostic report the same denial. */
    public static boolean same(Diagnostic exact, Diagnostic inferred) {
        if (exact.operation() != inferred.operation() || exact.operation() == Operation.NONE) {
            return false;
        }
        if (exact.subject().equals(inferred.subject())) {
            return true;
        }
        if (exact.operation() == Operation.CONNECT || exact.operation() == Operation.BIND) {
            // The record names the address, the tool perhaps the name it resolved (localhost):
            // one refusal when the ports agree.
            String port = exact.details().get(DetailKey.PORT.key());
            return port != null && port.equals(inferred.details().get(DetailKey.PORT.key()));
        }
        if (!onParentDirectory(exact)) {
            return false;
        }
        try {
            Path parent = Path.of(inferred.subject()).getParent();
            return parent != null && parent.equals(Path.of(exact.subject()));
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static boolean sameReport(Diagnostic a, Diagnostic b) {
        return a.operation() == b.operation() && a.subject().equals(b.subject());
    }

    private static boolean repeat(Diagnostic d) {
        return d.details().containsKey(DetailKey.REPEAT.key());
    }

    private static boolean isExact(Diagnostic d) {
        return d.source().equals(AuditDiagnostics.SOURCE) || d.source().equals(SUPERVISOR_SOURCE);
    }

    private static boolean onParentDirectory(Diagnostic exact) {
        List<String> blockers = exact.names(DetailKey.BLOCKERS);
        return !blockers.isEmpty() && Blockers.onParentDirectory(blockers);
    }
}
