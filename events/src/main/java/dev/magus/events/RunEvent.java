package dev.magus.events;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/** What a run streams, in order: one Started (unless refused), lines and diagnostics, one Exited. */
public sealed interface RunEvent {
    String runId();

    Instant at();

    /** The child was spawned. */
    record Started(String runId, Instant at, List<String> argv, Mode mode, long pid) implements RunEvent {
        public Started {
            argv = List.copyOf(argv);
            Objects.requireNonNull(mode, "mode");
        }
    }

    /** One line of the child's output, without its line terminator. */
    record Output(String runId, Instant at, Stream stream, String line) implements RunEvent {
    }

    /** A boundary hit or a notice. */
    record Diag(String runId, Instant at, Diagnostic diagnostic) implements RunEvent {
    }

    /**
     * The run ended. {@code status} follows magus run's exit status (child status, 128+N for a signal,
     * 125/126/127 for refusals); {@code signal} is 0 unless a signal ended the child.
     */
    record Exited(String runId, Instant at, int status, int signal, Duration duration) implements RunEvent {
    }

    enum Stream { STDOUT, STDERR }
}
