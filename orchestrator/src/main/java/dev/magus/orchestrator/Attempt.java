package dev.magus.orchestrator;

import dev.magus.events.Diagnostic;
import dev.magus.orchestrator.network.NetworkProxy;
import dev.magus.orchestrator.orphans.Watchdog;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What one execution of a run holds while its stages run ({@link RunStages}), and how it ends:
 * the private temp dir to remove, the proxy to close, the lease trail to end, and the
 * diagnostics raised before the spawn, held back so that a started run's events begin with
 * Started (a refused run has no Started; they then precede its Exited).
 */
final class Attempt {
    /** How long the end of the first run waits for the sweep of stale private temp dirs it started. */
    static final Duration SWEEP_GRACE = Duration.ofSeconds(2);

    /** How a run ended, decided by the stages; emitted only after the run's private temp dir is gone. */
    record Ending(int status, int signal) {
        static Ending refused(int status) {
            return new Ending(status, 0);
        }
    }

    Path privateTemp;
    /** The sweep of stale private temp dirs this run started, if it was the first of the process. */
    CompletableFuture<List<Path>> sweep = CompletableFuture.completedFuture(List.of());
    /** The leased job's trail, once run_started is written. */
    Optional<LeaseTrail> trail = Optional.empty();
    final List<Diagnostic> pending = new ArrayList<>();
    /** The run's network proxy (network mode proxy); closed before the exit event. */
    NetworkProxy proxy;

    void flush(RunJournal journal) {
        pending.forEach(journal::diagnostic);
        pending.clear();
    }

    /**
     * Ends the attempt however the stages ended: closes the proxy, ends the lease trail (an
     * incomplete trail fails a run that would have passed), removes the private temp dir, waits
     * for the sweep, and only then emits the exit event.
     */
    void end(Ending ending, RunJournal journal, Watchdog watchdog) {
        if (proxy != null) {
            // The proxy lives exactly as long as the run: its tunnels end with it.
            proxy.close();
        }
        if (trail.isPresent()) {
            Optional<Diagnostic> incomplete = trail.get().end(ending.status());
            if (incomplete.isPresent()) {
                journal.diagnostic(incomplete.get());
                if (ending.status() == 0) {
                    ending = new Ending(1, 0);
                }
            }
        }
        // Before the exit event: whoever sees the run end finds its private temp dir gone.
        if (privateTemp != null) {
            Trees.deleteQuietly(privateTemp);
            watchdog.releaseDir(privateTemp);
        }
        awaitSweep();
        journal.exit(ending.status(), ending.signal());
    }

    /**
     * Waits for the sweep, bounded: it runs beside the stages and is almost always done, but
     * a command line would otherwise exit under it; what a slow one leaves, the next run sweeps.
     */
    private void awaitSweep() {
        try {
            sweep.get(SWEEP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // see above
        }
    }
}
