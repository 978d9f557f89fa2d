package dev.magus.orchestrator.run;

import dev.magus.orchestrator.temp.StaleTemps;
import dev.magus.workspace.audit.AuditCaches;
import dev.magus.workspace.config.WorkspaceCaches;

/**
 * What an owner of runs keeps from one run to the next, with the owner's lifetime: a
 * command-line process, a server, a program embedding magus, a test. The owner makes one and
 * hands it to every {@link dev.magus.orchestrator.Orchestrator} it builds
 * ({@link dev.magus.orchestrator.Orchestrator.Builder#services}); an orchestrator given none makes
 * its own. A test that needs a cold start (a new process, as far as these go) makes a fresh one.
 *
 * <p>It holds the sweep of stale private temp dirs ({@link StaleTemps}), the after-run audits'
 * walks ({@link AuditCaches}) and the workspaces' parsed files
 * ({@link WorkspaceCaches}): a server or a program that runs many commands in one workspace pays
 * the full walk, and the parse of its {@code magus.yaml} and spells, once. What belongs to the
 * process, whoever owns its runs (the I/O threads, the watchdog, the subreaper and its strays),
 * is not here.
 */
public final class RunServices {
    private final AuditCaches audits = new AuditCaches();
    private final WorkspaceCaches workspaces = new WorkspaceCaches();
    private final StaleTemps temps = new StaleTemps();

    /** The walks the control-file and descendant audits keep from run to run. */
    public AuditCaches audits() {
        return audits;
    }

    /** Each workspace's parsed {@code magus.yaml} and YAML spells, kept while unchanged. */
    public WorkspaceCaches workspaces() {
        return workspaces;
    }

    /** The sweep of private temp dirs left by magus processes that are gone: once per temp base, by the first run. */
    public StaleTemps temps() {
        return temps;
    }
}
