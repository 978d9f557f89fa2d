package dev.magus.workspace.audit;

import java.util.Locale;
import java.util.Optional;

/**
 * {@code sandbox.controlFiles} in magus.yaml: what the audit does with a control file a run
 * created, changed or removed. Either way the run is reported and fails.
 */
public enum ControlFilesAction {
    /** Put it back as it was before the run (the default): the next tool never obeys the child. */
    RESTORE,
    /** Leave it as the child left it, for a person to look at. */
    REPORT;

    public String spelling() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** {@code restore} or {@code report}; empty for anything else. */
    public static Optional<ControlFilesAction> parse(String text) {
        for (ControlFilesAction a : values()) {
            if (a.spelling().equals(text)) {
                return Optional.of(a);
            }
        }
        return Optional.empty();
    }
}
