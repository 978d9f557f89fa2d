package dev.magus.orchestrator;

import static dev.magus.orchestrator.RunHandle.say;

import dev.magus.events.Mode;
import dev.magus.landlock.denials.DenialConfirmer;
import dev.magus.landlock.launch.Confinement;
import dev.magus.landlock.supervise.Supervisor;
import dev.magus.landlock.supervise.Support;
import dev.magus.orchestrator.run.Passthrough;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Whether a run is supervised ({@code --supervise}, {@code sandbox.supervise}), and what its end
 * says when the supervisor failed. A host that cannot supervise refuses the run in required
 * mode, and is said and skipped in best-effort; a run whose supervisor stopped while it went on
 * is supervised-failed (its later intercepted calls failed), never silently unsupervised.
 */
final class Supervision {
    private Supervision() {
    }

    /**
     * The run's supervisor, running and waiting for the child's listener; empty when not asked,
     * or when it cannot be had and the mode lets the run go on (said on the run's stream).
     *
     * @param confirmer the run's policy check, present with every kernel confinement
     * @throws Refusal when required mode asks for what this host cannot give
     */
    static Optional<Supervisor> start(boolean asked, RunHandle run, Passthrough passthrough, Confinement confinement,
            Optional<DenialConfirmer> confirmer, Path cwd) {
        if (!asked) {
            return Optional.empty();
        }
        String why;
        if (confinement.mode() == Mode.OFF) {
            why = "mode off has no kernel layer to supervise";
        } else if (!(confinement instanceof Confinement.Kernel) || confirmer.isEmpty()) {
            why = "this host has no Landlock domain for the child";
        } else {
            Support support = Support.probe();
            if (support.available()) {
                return Optional.of(Supervisor.start(confirmer.get(), cwd));
            }
            why = support.reason();
        }
        if (confinement.mode() == Mode.REQUIRED) {
            throw new Refusal.Said("magus: --supervise refused in required mode: " + why, 125);
        }
        say(run, passthrough, "magus: this run is not supervised: " + why);
        return Optional.empty();
    }

    /**
     * Ends {@code supervisor} once the run's processes are gone; the status the run ends with:
     * 1 for a supervised-failed run that would otherwise have succeeded.
     */
    static int end(Optional<Supervisor> supervisor, RunHandle run, Passthrough passthrough, int status) {
        if (supervisor.isEmpty()) {
            return status;
        }
        supervisor.get().close();
        Optional<String> failure = supervisor.get().failure();
        if (failure.isEmpty()) {
            return status;
        }
        say(run, passthrough, "magus: supervised-failed: " + failure.get()
                + "; the child's intercepted calls failed from then on (its denials after that are not reported)");
        return status == 0 ? 1 : status;
    }
}
