package dev.magus.orchestrator.run;

import dev.magus.events.RunEvent;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * One run to start ({@code Orchestrator.submit}), with what its caller adds to the request.
 *
 * @param request     the command to run
 * @param passthrough where the child's output also goes, byte for byte (a command line's own
 *                    stdout and stderr)
 * @param host        the host the run runs as, when not the orchestrator's (a server's client):
 *                    only its environment and home differ; the uid, installation and temp base
 *                    are the orchestrator's
 * @param observer    subscribed before anything of the run happens, so it gets every event and
 *                    output line (the journal keeps only a window for later subscribers)
 */
public record Submission(RunRequest request, Passthrough passthrough, Optional<Host> host, Consumer<RunEvent> observer) {
    public Submission {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(passthrough, "passthrough");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(observer, "observer");
    }

    /** {@code request} alone: events only, on the orchestrator's host, no observer. */
    public static Submission of(RunRequest request) {
        return new Submission(request, Passthrough.none(), Optional.empty(), e -> { });
    }

    public Submission withPassthrough(Passthrough p) {
        return new Submission(request, p, host, observer);
    }

    /** This run as if on {@code runHost}: its environment and home are the run's, not the orchestrator's. */
    public Submission on(Host runHost) {
        return new Submission(request, passthrough, Optional.of(runHost), observer);
    }

    public Submission observedBy(Consumer<RunEvent> o) {
        return new Submission(request, passthrough, host, o);
    }
}
