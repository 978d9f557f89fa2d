package dev.magus.orchestrator.pipeline;

import static dev.magus.orchestrator.pipeline.RunHandle.say;

import dev.magus.orchestrator.run.Passthrough;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.audit.AuditCaches;
import dev.magus.workspace.audit.DescendantAudit;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The descendant-scope audit of a write-mode dispatch (MGS3001), around the child: the names
 * of the descendant projects' trees recorded right before the spawn, compared once the run's
 * process group is gone. Asked for by {@link dev.magus.orchestrator.run.RunRequest#descendantAudit()}.
 */
final class DescendantStage {
    private DescendantStage() {
    }

    /**
     * Empty unless the request names descendants or the run is a {@code writes: true} target
     * whose project has registered descendants; the walk is kept in the state dir for the next process.
     */
    static Optional<DescendantAudit.Baseline> before(RunConfig config, Path stateDir, AuditCaches caches) {
        java.util.Set<Path> dirs = new java.util.LinkedHashSet<>(config.request().descendantAudit());
        config.target().filter(t -> t.writes()).flatMap(t -> config.project())
                .ifPresent(p -> dirs.addAll(config.projects().descendantDirs(p, config.workspaceRoot())));
        if (dirs.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(DescendantAudit.of(config.workspaceRoot(), java.util.List.copyOf(dirs), caches)
                .keepingWalksIn(new StateDir(stateDir)).before());
    }

    /**
     * Reports each descendant project the run wrote into as an MGS3001. Whether the run fails
     * for it: an audit that could not finish fails it too, since nothing then says the
     * descendants are untouched.
     */
    static boolean after(RunHandle run, Passthrough passthrough, DescendantAudit.Baseline baseline) {
        try {
            DescendantAudit.Report report = baseline.after();
            report.diagnostics().forEach(run.journal()::diagnostic);
            return report.wrote();
        } catch (RuntimeException e) {
            say(run, passthrough, "magus: the descendant-project audit could not finish, so the run fails: " + e);
            return true;
        }
    }
}
