package dev.magus.cli;

import dev.magus.workspace.config.Workspace;
import dev.magus.events.Diagnostic;
import dev.magus.events.Mode;
import dev.magus.events.RunEvent;
import dev.magus.server.RunLines;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * magus's own lines of a run, one rendering for both paths: a local run prints them, and the
 * server that {@code magus server start} runs writes them on a forwarded run's stderr, so every
 * forwarding client shows the same bytes without rendering anything.
 */
public final class PrintedLines implements RunLines {
    public static final PrintedLines INSTANCE = new PrintedLines();

    private PrintedLines() {
    }

    @Override
    public Optional<String> diagnostic(Diagnostic d, boolean verbose, boolean quiet) {
        return HumanLines.shown(d, verbose, quiet) ? Optional.of(HumanLines.line(d, verbose)) : Optional.empty();
    }

    @Override
    public Optional<String> started(RunEvent.Started started, Path cwd, Optional<String> sandbox, List<String> argv,
            boolean quiet) {
        return unconfined(started.mode(), sandbox, cwd, argv, quiet);
    }

    @Override
    public List<String> granted(List<String> allow, Path cwd, Path home, boolean quiet) {
        return quiet ? List.of() : CredentialGrants.warnings(allow, cwd, home);
    }

    /**
     * Once per run, on stderr: a run in mode off is not confined at all, which a person who
     * expected magus to sandbox it must not have to guess.
     */
    static Optional<String> unconfined(Mode mode, Optional<String> sandbox, Path cwd, List<String> command, boolean quiet) {
        if (quiet || mode != Mode.OFF) {
            return Optional.empty();
        }
        String why;
        if (sandbox.filter(m -> m.equals(Mode.OFF.spelling())).isPresent()) {
            why = "--sandbox=off";
        } else if (Workspace.findFile(cwd.toAbsolutePath().normalize()).isEmpty()) {
            why = "no magus.yaml here or above";
        } else {
            why = "sandbox.mode is off in magus.yaml";
        }
        String what = command == null || command.isEmpty() ? "the target" : command.get(0);
        return Optional.of("magus: unconfined (" + why + "): " + what + " runs without a sandbox, nothing is"
                + " checked; declare sandbox.mode in magus.yaml or pass --sandbox=best-effort (-q: not said)");
    }
}
