package dev.magus.orchestrator.cli;

import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Severity;

/** How a diagnostic reads on a person's terminal: one line, the code first, where to read more last. */
final class HumanLines {
    private HumanLines() {
    }

    static String line(Diagnostic d) {
        String layer = d.layer() == Layer.KERNEL || d.layer() == Layer.AUDIT ? " [" + d.layer().label() + "]" : "";
        return "magus: " + d.code().name() + " " + d.message() + layer + "; see 'magus explain " + d.code().name() + "'";
    }

    /** Debug diagnostics (MGS2008) only show when asked for. */
    static boolean shown(Diagnostic d, boolean verbose) {
        return verbose || d.severity() != Severity.DEBUG;
    }
}
