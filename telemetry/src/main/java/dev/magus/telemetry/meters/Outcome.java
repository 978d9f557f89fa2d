package dev.magus.telemetry.meters;

import dev.magus.events.RunEvent;
import java.util.Locale;

/**
 * How a run ended, as the {@code outcome} tag of {@code magus.runs}.
 *
 * <p>Derived from the events alone: a run without a {@link RunEvent.Started} never spawned
 * its child, so whatever its status (125 for MGS2004/2010/2011/2012, 126 for an exec denied
 * before spawn, 127 for a command not found) it was {@link #REFUSED}. After a Started, a
 * signal makes it {@link #SIGNALLED}, status 0 {@link #OK} and any other status
 * {@link #FAILED}. A run whose event stream completes after Started but before any Exited
 * was {@link #CANCELLED}; one whose stream errors there, {@link #FAILED}.
 */
public enum Outcome {
    OK, FAILED, REFUSED, SIGNALLED, CANCELLED;

    /** The tag value, lower case. */
    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The outcome of a run that ended with {@code exited}; {@code started} says whether a Started preceded it. */
    public static Outcome of(boolean started, RunEvent.Exited exited) {
        if (!started) {
            return REFUSED;
        }
        if (exited.signal() != 0) {
            return SIGNALLED;
        }
        return exited.status() == 0 ? OK : FAILED;
    }
}
