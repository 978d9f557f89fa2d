package dev.magus.orchestrator.run;

import dev.magus.workspace.audit.AuditCaches;

/**
 * What an owner of runs keeps from one run to the next, with the owner's lifetime: a
 * command-line process, a server, a program embedding magus, a test. The owner makes one and
 * hands it to every {@link dev.magus.orchestrator.Orchestrator} it builds
 * ({@link dev.magus.orchestrator.Orchestrator.Builder#services}); an orchestrator given none makes
 * its own. A test that needs a cold start (a new process, as far as these go) makes a fresh one.
 *
 * <p>It holds the after-run audits' walks ({@link AuditCaches}): a server or a program that runs
 * many commands in one workspace pays the full walk once.
 */
public final class RunServices {
    private final AuditCaches audits = new AuditCaches();

    /** The walks the control-file and descendant audits keep from run to run. */
    public AuditCaches audits() {
        return audits;
    }
}
