package dev.magus.cli.ui;

import dev.magus.events.DetailKey;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Operation;
import dev.magus.events.RunEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Turns the run's events and the clock's ticks into the next {@link ViewState}. Pure: no
 * terminal, no clock of its own, no mutable state, so it is tested event by event.
 */
public final class ViewReducer {

    private final int keep;

    /** @param keep how many of the latest denials the view holds (1 or more) */
    public ViewReducer(int keep) {
        if (keep < 1) {
            throw new IllegalArgumentException("keep must be 1 or more: " + keep);
        }
        this.keep = keep;
    }

    /** Before any event: the command the person asked for, nothing seen yet. */
    public ViewState initial(List<String> command, Instant now) {
        return new ViewState(command, Optional.empty(), 0, now, Duration.ZERO, Map.of(), List.of(), 0, 0, 0, Optional.empty());
    }

    public ViewState apply(ViewState s, RunEvent event) {
        if (event instanceof RunEvent.Started st) {
            return new ViewState(st.argv(), Optional.of(st.mode()), st.pid(), st.at(), elapsed(st.at(), st.at()),
                    s.counts(), s.denials(), s.deniedTotal(), s.distinct(), s.lines(), s.ending());
        }
        if (event instanceof RunEvent.Output) {
            return new ViewState(s.command(), s.mode(), s.pid(), s.since(), s.elapsed(),
                    s.counts(), s.denials(), s.deniedTotal(), s.distinct(), s.lines() + 1, s.ending());
        }
        if (event instanceof RunEvent.Diag d) {
            return diagnostic(s, d.diagnostic());
        }
        if (event instanceof RunEvent.Exited ex) {
            return new ViewState(s.command(), s.mode(), s.pid(), s.since(), ex.duration(),
                    s.counts(), s.denials(), s.deniedTotal(), s.distinct(), s.lines(),
                    Optional.of(new ViewState.Ending(ex.status(), ex.signal(), ex.duration())));
        }
        throw new IllegalArgumentException("unknown event " + event);
    }

    /** The clock moved: elapsed time follows it while the run goes, and stays put once it ended. */
    public ViewState tick(ViewState s, Instant now) {
        if (!s.running()) {
            return s;
        }
        return new ViewState(s.command(), s.mode(), s.pid(), s.since(), elapsed(s.since(), now),
                s.counts(), s.denials(), s.deniedTotal(), s.distinct(), s.lines(), s.ending());
    }

    private ViewState diagnostic(ViewState s, Diagnostic d) {
        Map<Code, Long> counts = new EnumMap<>(Code.class);
        counts.putAll(s.counts());
        counts.merge(d.code(), 1L, Long::sum);
        if (d.operation() == Operation.NONE) {
            return new ViewState(s.command(), s.mode(), s.pid(), s.since(), s.elapsed(),
                    counts, s.denials(), s.deniedTotal(), s.distinct(), s.lines(), s.ending());
        }
        if (d.has(DetailKey.REPEAT)) {
            // One more occurrence of a denial already listed: counted, not listed again.
            return new ViewState(s.command(), s.mode(), s.pid(), s.since(), s.elapsed(),
                    counts, s.denials(), s.deniedTotal() + 1, s.distinct(), s.lines(), s.ending());
        }
        List<ViewState.Denial> denials = new ArrayList<>(keep);
        Optional<String> allowYaml = d.detail(DetailKey.ALLOW_YAML).filter(y -> !y.isBlank());
        denials.add(new ViewState.Denial(d.code(), path(d), d.operation(), d.layer(),
                allowYaml, allowYaml.map(YamlHint::oneLine)));
        denials.addAll(s.denials().subList(0, Math.min(keep - 1, s.denials().size())));
        return new ViewState(s.command(), s.mode(), s.pid(), s.since(), s.elapsed(),
                counts, denials, s.deniedTotal() + 1, s.distinct() + 1, s.lines(), s.ending());
    }

    /** The resolved path the diagnostic is about; the requested one when a diagnostic lacks it. */
    private static String path(Diagnostic d) {
        if (!d.subject().isEmpty()) {
            return d.subject();
        }
        return d.details().getOrDefault(DetailKey.REQUESTED.key(), "");
    }

    private static Duration elapsed(Instant since, Instant now) {
        Duration d = Duration.between(since, now);
        return d.isNegative() ? Duration.ZERO : d;
    }
}
