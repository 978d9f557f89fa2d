package dev.magus.orchestrator.pipeline;

import dev.magus.orchestrator.run.Host;
import dev.magus.orchestrator.run.Unexpected;

import dev.magus.orchestrator.temp.Trees;

import static dev.magus.orchestrator.pipeline.RunHandle.say;

import dev.magus.events.Diagnostic;
import dev.magus.landlock.launch.Child;
import dev.magus.landlock.launch.Confinement;
import dev.magus.orchestrator.network.NetworkProxy;
import dev.magus.orchestrator.temp.StaleTemps;
import dev.magus.orchestrator.orphans.Watchdog;
import dev.magus.orchestrator.threads.IoThreads;
import dev.magus.orchestrator.run.Passthrough;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import reactor.core.publisher.Mono;

/**
 * The resource of one execution of a run, which {@link RunStages}' {@code usingWhen} releases
 * however the chain ends: what the stages acquired (the private temp dir, the lease trail, the
 * proxy, the ruleset), the diagnostics raised before the spawn, held back so that a started
 * run's events begin with Started (a refused run has no Started; they then precede its Exited),
 * and the one end of the run ({@link #end}).
 *
 * <p>Each stage runs through {@link #step} under this attempt's lock, and the end takes the same
 * lock: a cancellation that arrives while a stage runs ends the run once that stage is done,
 * never beside it (it would delete a temp dir a stage is writing, or end a trail a stage is
 * starting), and no stage starts after it.
 */
final class Attempt {
    /** How long the end of the first run waits for the sweep of stale private temp dirs it started. */
    static final Duration SWEEP_GRACE = Duration.ofSeconds(2);

    /** How a run ended, decided by the stages; emitted only after the run's private temp dir is gone. */
    record Ending(int status, int signal) {
        static Ending refused(int status) {
            return new Ending(status, 0);
        }

        /** A run cancelled by {@code signal} before its spawn: 128+N, as a shell says it. */
        static Ending cancelled(int signal) {
            return new Ending(128 + signal, signal);
        }
    }

    private final RunHandle run;
    private final Passthrough passthrough;
    private final Watchdog watchdog;
    private final IoThreads threads;
    /** The owner's sweep of stale private temp dirs, once per temp base. */
    private final StaleTemps temps;
    // Guarded by this.
    private Path privateTemp;
    /** The sweep of stale private temp dirs this run started, if it was the first of its owner's. */
    private CompletableFuture<List<Path>> sweep = CompletableFuture.completedFuture(List.of());
    private Optional<LeaseTrail> trail = Optional.empty();
    private NetworkProxy proxy;
    private Confinement confinement;
    private final List<Diagnostic> pending = new ArrayList<>();
    /** What the stages decided; empty until the last stage (or a cancelled spawn) says. */
    private Optional<Ending> concluded = Optional.empty();
    private boolean ended;
    /** Set by a cancellation the moment it arrives: a stage still running then hands nothing on. */
    private volatile boolean cancelled;

    Attempt(RunHandle run, Passthrough passthrough, Watchdog watchdog, IoThreads threads, StaleTemps temps) {
        this.run = run;
        this.passthrough = passthrough;
        this.watchdog = watchdog;
        this.threads = threads;
        this.temps = temps;
    }

    /**
     * One stage of the chain, under this attempt's lock: its value, or its refusal as an error
     * signal ({@link Refusal#signal}). Empty once the attempt is cancelled or ended: a stage
     * the cancellation overtook hands nothing on, not even its failure, since the run ends by the
     * signal.
     */
    <T> Mono<T> step(Callable<T> stage) {
        return Mono.defer(() -> {
            synchronized (this) {
                if (ended || cancelled) {
                    return Mono.empty();
                }
                try {
                    T value = stage.call();
                    return cancelled ? Mono.empty() : Mono.justOrEmpty(value);
                } catch (Throwable e) {
                    // Whatever broke, the run ends through its release: a caller waiting on result() is never left hanging.
                    return cancelled ? Mono.empty() : Mono.error(Refusal.signal(e));
                }
            }
        });
    }

    /** Owns the run's private temp dir from now on: the watchdog removes it if magus dies; the owner's first run sweeps stale ones. */
    synchronized Optional<Path> ownTemp(Optional<Path> temp, Host host) {
        temp.ifPresent(t -> {
            privateTemp = t;
            watchdog.guardDir(t);
            sweep = temps.sweepOnce(host.tempBase(), host.uid(), threads.io()::schedule);
        });
        return temp;
    }

    synchronized Optional<LeaseTrail> ownTrail(Optional<LeaseTrail> t) {
        trail = t;
        return t;
    }

    /** Owns the run's proxy: it lives exactly as long as the run. Its port, or empty without one. */
    synchronized OptionalInt ownProxy(Optional<NetworkProxy> p) {
        proxy = p.orElse(null);
        return p.map(x -> OptionalInt.of(x.port())).orElseGet(OptionalInt::empty);
    }

    /** Owns the ruleset until the end, in case the spawn that closes it right after itself never comes. */
    synchronized Confinement ownConfinement(Confinement c) {
        confinement = c;
        return c;
    }

    /** Holds {@code diagnostics} back until the run has started, or has ended without starting. */
    synchronized void holdBack(Collection<Diagnostic> diagnostics) {
        pending.addAll(diagnostics);
    }

    synchronized void flush() {
        pending.forEach(run.journal()::diagnostic);
        pending.clear();
    }

    /** What the chain decided; the release ends the run with it. */
    synchronized void conclude(Ending ending) {
        concluded = Optional.of(ending);
    }

    // The releases of RunStages' usingWhen, one for each way the chain ends.

    /** The chain completed: with its ending, or without one when the spawn found the run cancelled. */
    Mono<Void> completed() {
        return Mono.fromRunnable(() -> {
            synchronized (this) {
                end(concluded.orElseGet(() -> {
                    int signal = run.cancelledBy();
                    if (signal != 0) {
                        return Ending.cancelled(signal);
                    }
                    say(run, passthrough, Unexpected.line(new IllegalStateException("the run ended without an ending")));
                    return Ending.refused(125);
                }));
            }
        });
    }

    /** The chain failed: a stage refused (its diagnostic or line, its status), or magus broke (125). */
    Mono<Void> failed(Throwable e) {
        return Mono.fromRunnable(() -> {
            synchronized (this) {
                flush();
                if (e instanceof Refusal.Diagnosed d) {
                    run.journal().diagnostic(d.diagnostic());
                } else if (e instanceof Refusal.Said s) {
                    say(run, passthrough, s.line());
                } else {
                    say(run, passthrough, Unexpected.line(e));
                }
                end(e instanceof Refusal r ? Ending.refused(r.status()) : Ending.refused(125));
            }
        });
    }

    /**
     * The chain was cancelled (a signal before the spawn disposed it): no child started, and the
     * run ends with 128+N. Off the cancelling thread, which must not wait: once the stage that
     * runs now is done (the lock).
     */
    Mono<Void> cancelled() {
        cancelled = true;
        return Mono.<Void>fromRunnable(() -> {
            synchronized (this) {
                int signal = run.cancelledBy();
                // Only a signal disposes the chain (RunHandle); SIGKILL, were it ever anything else.
                end(Ending.cancelled(signal != 0 ? signal : Child.SIGKILL));
            }
        }).subscribeOn(threads.stages());
    }

    /**
     * Ends the attempt, once, however the stages ended: flushes what was held back, closes the
     * ruleset and the proxy, ends the lease trail (an incomplete trail fails a run that would have
     * passed), removes the private temp dir, waits for the sweep, and only then emits the exit event.
     */
    private void end(Ending ending) {
        if (ended) {
            return;
        }
        ended = true;
        flush();
        if (confinement != null) {
            confinement.close();
        }
        if (proxy != null) {
            // The proxy lives exactly as long as the run: its tunnels end with it.
            proxy.close();
        }
        if (trail.isPresent()) {
            Optional<Diagnostic> incomplete = trail.get().end(ending.status());
            if (incomplete.isPresent()) {
                run.journal().diagnostic(incomplete.get());
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
        run.journal().exit(ending.status(), ending.signal());
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
