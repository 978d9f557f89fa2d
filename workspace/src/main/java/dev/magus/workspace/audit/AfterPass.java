package dev.magus.workspace.audit;

/**
 * How one run's audit found what changed after the run: from the kernel's events
 * ({@code events}: only the directories they name were listed again), or by stamping every
 * directory the walk knew, and why ({@code detail}: the watcher's refusal or doubt, "no
 * watcher installed", "switched off"). For tests, benchmarks and diagnostics; the findings are
 * the same either way.
 */
public record AfterPass(boolean events, String detail) {
    public AfterPass {
        java.util.Objects.requireNonNull(detail, "detail");
    }
}
