package dev.magus.orchestrator.run;

import dev.magus.orchestrator.network.ProxyLoops;
import dev.magus.orchestrator.orphans.Watchdog;
import dev.magus.orchestrator.temp.StaleTemps;
import dev.magus.orchestrator.threads.IoThreads;
import dev.magus.workspace.audit.AuditCaches;
import dev.magus.workspace.config.WorkspaceCaches;

/**
 * What an owner of runs (a command-line process, a server, a program embedding magus, a test)
 * keeps from one run to the next. The owner makes one, hands it to every
 * {@link dev.magus.orchestrator.Orchestrator} it builds
 * ({@link dev.magus.orchestrator.Orchestrator.Builder#services}) and closes it; an orchestrator
 * given none makes its own and closes it with itself.
 *
 * <p>It holds the I/O threads ({@link IoThreads}), the run proxies' event loops
 * ({@link ProxyLoops}), the watchdog ({@link Watchdog}), the sweep of stale temp dirs
 * ({@link StaleTemps}), the audits' walks ({@link AuditCaches}) and the parsed workspaces
 * ({@link WorkspaceCaches}). Facts about the process (the subreaper, the launcher's threads,
 * the signal handlers) are not here.
 */
public final class RunServices implements AutoCloseable {
    private final IoThreads threads = new IoThreads();
    private final Watchdog watchdog = new Watchdog();
    private final AuditCaches audits = new AuditCaches();
    private final WorkspaceCaches workspaces = new WorkspaceCaches();
    private final StaleTemps temps = new StaleTemps();
    private final ProxyLoops proxyLoops = new ProxyLoops();

    /** The threads where everything of these runs that blocks runs. */
    public IoThreads threads() {
        return threads;
    }

    /** The event loops every run proxy of these runs shares; made by the first run under network mode proxy. */
    public ProxyLoops proxyLoops() {
        return proxyLoops;
    }

    /** Kills these runs' groups and removes their private temp dirs if magus dies first; its loop starts with the first run. */
    public Watchdog watchdog() {
        return watchdog;
    }

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

    /**
     * Ends the watchdog's loop (which kills what is still registered, as magus's death would),
     * shuts the proxies' event loops down gracefully and lets the I/O threads end. Call once no
     * run of these services is running: a run still going loses its watchdog, and one submitted
     * after is refused its threads.
     */
    @Override
    public void close() {
        watchdog.close();
        proxyLoops.close();
        threads.close();
    }
}
