package dev.magus.server;

import dev.magus.events.Diagnostic;
import dev.magus.events.RunEvent;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * magus's own lines of a run, as the command line prints them on a local run: the server writes
 * them on a forwarded run's stderr, in order with the child's bytes, so that every client shows
 * the same bytes and none renders anything itself. The command line hands its own rendering to
 * the server it starts ({@code magus server start}); the server module cannot depend on it.
 */
public interface RunLines {
    /**
     * The line(s) shown for {@code d}, or empty when a run at this verbosity shows none:
     * {@code -v} shows everything, {@code -q} refusals and denials only.
     */
    Optional<String> diagnostic(Diagnostic d, boolean verbose, boolean quiet);

    /**
     * The line said when the run started (a run in mode off says it is unconfined), or empty.
     *
     * @param cwd     the run's working directory
     * @param sandbox its {@code --sandbox}, as written
     * @param argv    its command (empty for a target)
     * @param quiet   {@code -q}
     */
    Optional<String> started(RunEvent.Started started, Path cwd, Optional<String> sandbox, List<String> argv, boolean quiet);

    /**
     * The lines said before the run starts about what its command line grants (an {@code --allow}
     * of a credential store), or none; none at {@code -q}.
     *
     * @param allow its {@code --allow} values, as written (relative to {@code cwd})
     * @param home  the run's home directory
     */
    List<String> granted(List<String> allow, Path cwd, Path home, boolean quiet);

    /** No lines at all (a server without a command line, which serves no run). */
    RunLines NONE = new RunLines() {
        @Override
        public Optional<String> diagnostic(Diagnostic d, boolean verbose, boolean quiet) {
            return Optional.empty();
        }

        @Override
        public Optional<String> started(RunEvent.Started started, Path cwd, Optional<String> sandbox, List<String> argv,
                boolean quiet) {
            return Optional.empty();
        }

        @Override
        public List<String> granted(List<String> allow, Path cwd, Path home, boolean quiet) {
            return List.of();
        }
    };
}
