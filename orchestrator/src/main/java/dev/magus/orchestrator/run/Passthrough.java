package dev.magus.orchestrator.run;

import java.io.OutputStream;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a child's output also goes byte for byte, as it is read: for a caller that stands in
 * for the child (a command line piping {@code magus run -- tar c .} into a file), where the
 * decoded, line-split {@link dev.magus.events.RunEvent.Output} events would change binary
 * output, a final line without a newline, and CRs. The events are emitted as well.
 *
 * <p>The streams are written from magus's I/O threads and flushed after each read. When one
 * fails (its reader went away), nothing more is written to it and the child's pipe keeps
 * draining, so the child is never blocked by it.
 */
public record Passthrough(Optional<OutputStream> stdout, Optional<OutputStream> stderr) {
    public Passthrough {
        Objects.requireNonNull(stdout, "stdout");
        Objects.requireNonNull(stderr, "stderr");
    }

    /** Nothing passes through: events only. */
    public static Passthrough none() {
        return new Passthrough(Optional.empty(), Optional.empty());
    }

    public static Passthrough of(OutputStream stdout, OutputStream stderr) {
        return new Passthrough(Optional.of(stdout), Optional.of(stderr));
    }
}
