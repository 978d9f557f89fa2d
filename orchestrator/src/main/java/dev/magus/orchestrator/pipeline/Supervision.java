package dev.magus.orchestrator.pipeline;

import static dev.magus.orchestrator.pipeline.RunHandle.say;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Mode;
import dev.magus.events.SandboxException;
import dev.magus.landlock.denials.DenialConfirmer;
import dev.magus.landlock.launch.Confinement;
import dev.magus.landlock.supervise.Approval;
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
     * @param approval  who decides about a refused open ({@code --ask}); where this host cannot
     *                  hand over a descriptor, said, and nobody is asked (the refusals stand)
     * @throws Refusal when required mode asks for what this host cannot give
     */
    static Optional<Supervisor> start(boolean asked, RunHandle run, Passthrough passthrough, Confinement confinement,
            Optional<DenialConfirmer> confirmer, Path cwd, Optional<Approval> approval) {
        if (!asked) {
            return Optional.empty();
        }
        boolean kernel = confinement instanceof Confinement.Kernel && confirmer.isPresent();
        Verdict v = decide(confinement.mode(), kernel, kernel ? Support.probe() : new Support(false, ""));
        if (v instanceof Verdict.Refuse r) {
            throw new Refusal.Said("magus: --supervise refused in required mode: " + r.why(), 125);
        }
        if (v instanceof Verdict.Skip k) {
            say(run, passthrough, "magus: this run is not supervised: " + k.why());
            return Optional.empty();
        }
        Optional<String> gap = approval.isPresent() ? Support.approvalGap() : Optional.empty();
        gap.ifPresent(why -> say(run, passthrough, "magus: --ask cannot ask on this host, refused accesses stay refused: " + why));
        return Optional.of(Supervisor.start(confirmer.orElseThrow(), cwd, approval.filter(a -> gap.isEmpty())));
    }

    /**
     * A run inside a supervised run: said and run unsupervised in best-effort (the enclosing
     * run's supervisor still sees, and Landlock still refuses, every call); refused in required
     * mode, with the launch's own diagnostic made plain.
     *
     * @throws SandboxException MGS2012 in required mode
     */
    static void nestedUnsupervised(Mode mode, SandboxException failure, RunHandle run, Passthrough passthrough) {
        String why = "it runs inside a supervised run, whose supervisor holds the one listener the kernel allows"
                + " per process tree (EBUSY)";
        if (mode == Mode.REQUIRED) {
            Diagnostic d = failure.diagnostic();
            throw new SandboxException(new Diagnostic(Code.MGS2012, "--supervise refused in required mode: " + why
                    + "; the child was not started", d.subject(), d.operation(), d.layer(), d.source(), d.details()));
        }
        say(run, passthrough, "magus: this run is not supervised: " + why
                + "; that supervisor sees its calls, and Landlock still holds");
    }

    /** What a run that asked for supervision gets. */
    sealed interface Verdict {
        record Start() implements Verdict {
        }

        /** Not supervised, said on the run's stream. */
        record Skip(String why) implements Verdict {
        }

        /** Required mode: the run does not start. */
        record Refuse(String why) implements Verdict {
        }
    }

    /**
     * @param kernel  whether the child gets a Landlock domain (and the run a policy to check with)
     * @param support what this host can do (read only when {@code kernel})
     */
    static Verdict decide(Mode mode, boolean kernel, Support support) {
        String why;
        if (mode == Mode.OFF) {
            why = "mode off has no kernel layer to supervise";
        } else if (!kernel) {
            why = "this host has no Landlock domain for the child";
        } else if (support.available()) {
            return new Verdict.Start();
        } else {
            why = support.reason();
        }
        return mode == Mode.REQUIRED ? new Verdict.Refuse(why) : new Verdict.Skip(why);
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
