package dev.magus.orchestrator.pipeline;

import static dev.magus.orchestrator.pipeline.RunHandle.say;

import dev.magus.events.Diagnostic;
import dev.magus.landlock.denials.DenialConfirmer;
import dev.magus.orchestrator.run.Passthrough;
import dev.magus.policy.PolicyOrOff;
import dev.magus.policy.Verdict;
import dev.magus.policy.fs.Access;
import dev.magus.workspace.audit.ControlFileAudit;
import dev.magus.workspace.audit.LeaseAudit;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

/** The policy's checks around a run's child: the denial confirmer while it runs, the control-file and lease audits after. */
final class RunChecks {
    private RunChecks() {
    }

    /**
     * The stage after the child: the audits, once its process group is gone, in order: control
     * files, descendant projects, lease writes. A run an audit fails exits 1 unless the child
     * already failed (docs/network.md).
     */
    static Attempt.Ending after(RunHandle run, Passthrough passthrough, ChildLaunch.Streamed streamed) {
        ChildLaunch.Launched launched = streamed.launched();
        RunConfig config = launched.plan().config();
        boolean failed = launched.controlFiles().isPresent()
                && audit(run, passthrough, launched.controlFiles().get(), config);
        failed |= launched.descendants().isPresent()
                && DescendantStage.after(run, passthrough, launched.descendants().get());
        failed |= launched.leaseWrites().isPresent()
                && leaseAudit(run, passthrough, launched.leaseWrites().get(), config);
        int status = failed && streamed.status() == 0 ? 1 : streamed.status();
        return new Attempt.Ending(status, streamed.signal());
    }

    /**
     * The control-file audit, once the child's process group is gone: each control file the
     * run created, changed or removed is an MGS2002 (layer audit), put back unless the
     * workspace says {@code sandbox.controlFiles: report}, the run's version kept in the
     * quarantine first. What the audit kept (a repository the run created, a harmless config
     * change) or neutralised without failing the run is an info line. Whether the run fails
     * for it ({@link #reported}).
     */
    static boolean audit(RunHandle run, Passthrough passthrough, ControlFileAudit.Baseline baseline, RunConfig config) {
        return reported(run, passthrough, config, "control-file audit", () -> {
            ControlFileAudit.Report r = baseline.after(config.config().controlFiles(), run.id());
            return new Found(r.diagnostics(), r.notes(), r.changed());
        });
    }

    /**
     * The lease audit, once the child's process group is gone (after the control-file audit,
     * which may put back what lies in both): each entry the run wrote outside its job's globs
     * in a directory the kernel granted whole for them is an MGS2002 (layer audit) naming the
     * job, which the run's trail records, put back with the run's version kept in the
     * quarantine. Whether the run fails for it: an audit that could not finish fails it too.
     */
    static boolean leaseAudit(RunHandle run, Passthrough passthrough, LeaseAudit.Baseline baseline, RunConfig config) {
        return reported(run, passthrough, config, "lease audit", () -> {
            LeaseAudit.Report r = baseline.after(run.id());
            return new Found(r.diagnostics(), r.notes(), r.failing());
        });
    }

    /** What an after-run audit found: its diagnostics, its info lines, whether the run fails for it. */
    private record Found(List<Diagnostic> diagnostics, List<String> notes, boolean fails) {
    }

    /**
     * Runs an after-run audit that restores, reports what it found, and says whether the run
     * fails: an audit that could not finish fails it too, since nothing then says the files are
     * intact. Two runs of one process in one workspace audit and restore one at a time, so
     * neither puts back its snapshot over the other's restore halfway through.
     */
    private static boolean reported(RunHandle run, Passthrough passthrough, RunConfig config, String name,
            Supplier<Found> audit) {
        try {
            Found found;
            synchronized (lockFor(config.workspaceRoot())) {
                found = audit.get();
            }
            found.diagnostics().forEach(run.journal()::diagnostic);
            found.notes().forEach(line -> say(run, passthrough, line));
            return found.fails();
        } catch (RuntimeException e) {
            say(run, passthrough, "magus: the " + name + " could not finish, so the run fails: " + e);
            return true;
        }
    }

    /** One lock per real workspace root in this process (the path as given when it cannot be resolved). */
    private static final ConcurrentMap<Path, Object> LOCKS = new ConcurrentHashMap<>();

    static Object lockFor(Path root) {
        Path key;
        try {
            key = root.toRealPath();
        } catch (IOException | RuntimeException e) {
            key = root.toAbsolutePath().normalize();
        }
        return LOCKS.computeIfAbsent(key, k -> new Object());
    }

    /** The policy's binding-layer check, as the seam the denial inference confirms each candidate with. */
    static DenialConfirmer confirmer(PolicyOrOff policy) {
        return (op, path, cwd) -> {
            Access access = switch (op) {
                case READ -> Access.READ;
                case WRITE -> Access.WRITE;
                case EXEC -> Access.EXEC;
                case NONE, CONNECT, BIND, SOCKET -> null;
            };
            if (access == null) {
                return Optional.empty();
            }
            if (!(policy.check(access, path, cwd) instanceof Verdict.Denied d)) {
                return Optional.empty();
            }
            // The binding layer refuses more than the kernel can: a control file inside a grant,
            // a name a lease's glob leaves out in a directory the kernel grants whole. A tool's
            // "Permission denied" there was not the sandbox's doing, and a guess of where a
            // relative name was (a child that has exited) is not one the kernel could refuse.
            return kernelAllows(policy, access, d.diagnostic()) ? Optional.empty() : Optional.of(d.diagnostic());
        };
    }

    /** Whether the rules the kernel enforces grant {@code access} on the refused path (never for a loop or an odd subject). */
    private static boolean kernelAllows(PolicyOrOff policy, Access access, dev.magus.events.Diagnostic refused) {
        if (policy.policy().isEmpty() || refused.code() == dev.magus.events.Code.MGS2009) {
            return false;
        }
        Path subject;
        try {
            subject = Path.of(refused.subject());
        } catch (java.nio.file.InvalidPathException e) {
            return false;
        }
        return subject.isAbsolute() && policy.policy().get().ruleset().permits(subject, access);
    }
}
