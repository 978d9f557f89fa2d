package dev.magus.orchestrator.run;

import dev.magus.events.Echo;

/**
 * The one line for a failure magus did not foresee: a bug, since every failure of the host or of
 * an input has its own diagnostic. It says so in words, names the error for the bug report, and
 * never prints a stack trace at the person, whose question is only whether anything ran.
 */
public final class Unexpected {
    private Unexpected() {
    }

    public static String line(Throwable e) {
        String message = e.getMessage() == null ? "" : ": " + e.getMessage();
        String shown = Echo.visible(e.getClass().getSimpleName() + message);
        if (shown.length() > 300) {
            shown = shown.substring(0, 300) + "…";
        }
        return "magus: an unexpected failure in magus itself (a bug; please report it with this line): "
                + shown;
    }
}
