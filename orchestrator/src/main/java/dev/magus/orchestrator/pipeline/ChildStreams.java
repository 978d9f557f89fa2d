package dev.magus.orchestrator.pipeline;

import static dev.magus.orchestrator.pipeline.RunHandle.say;

import dev.magus.events.RunEvent;
import dev.magus.landlock.denials.DenialConfirmer;
import dev.magus.landlock.denials.stream.KernelDenialStream;
import dev.magus.landlock.denials.audit.AuditDenialSource;
import dev.magus.landlock.launch.Child;
import dev.magus.landlock.launch.Exit;
import dev.magus.landlock.supervise.Supervisor;
import dev.magus.orchestrator.contain.RunCgroups;
import dev.magus.orchestrator.orphans.Collected;
import dev.magus.orchestrator.orphans.Strays;
import dev.magus.orchestrator.orphans.Watchdog;
import dev.magus.orchestrator.threads.IoThreads;
import dev.magus.orchestrator.run.Passthrough;
import dev.magus.orchestrator.run.Stdin;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import dev.magus.events.Diagnostic;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/** A started child's streams: its pipes pumped into the run's events, its stdin fed, its denials reported. */
final class ChildStreams {
    /** How long, after the child exits, its output may still drain from descendants holding the pipes. */
    static final Duration DRAIN_GRACE = Duration.ofSeconds(2);
    /** How long killing and reaping the run's strays (descendants that left its group) may take. */
    static final Duration STRAY_GRACE = Duration.ofSeconds(2);

    private final Watchdog watchdog;
    private final IoThreads threads;
    private final Optional<AuditDenialSource> audit;

    ChildStreams(Watchdog watchdog, IoThreads threads, Optional<AuditDenialSource> audit) {
        this.watchdog = watchdog;
        this.threads = threads;
        this.audit = audit;
    }

    /**
     * How the child ended, and whether something of the run outlived it ({@link Collected}):
     * then an MGS2002 said so, and the run fails.
     */
    record Ended(Exit exit, boolean strayed) {
    }

    /**
     * Pumps the pipes, feeds stdin, waits, and returns once the output has drained and every
     * kernel-layer denial it reported has been confirmed (and, with an audit source, merged
     * with the kernel's own records). When the child ends, what it left running in its process
     * group is killed before it is reaped, so background jobs holding the pipes do not delay
     * the end of the run; only descendants that left the group can still hold them, for at
     * most {@link #DRAIN_GRACE}. The confirmed denials go to {@code denials}: the run's events,
     * or, for a nested magus that shows them itself, only its job's trail.
     */
    Ended stream(RunHandle run, Child child, Stdin stdin, Passthrough passthrough, Optional<DenialConfirmer> confirmer,
            Optional<Supervisor> supervisor, Path cwd, List<String> argv, Consumer<Diagnostic> denials) {
        // Only the denial inference reads the lines back; without it nothing is buffered twice.
        Optional<Sinks.Many<RunEvent.Output>> lines = confirmer.map(c -> Sinks.many().unicast().<RunEvent.Output>onBackpressureBuffer());
        Mono<Void> denialsDone = confirmer
                .map(c -> KernelDenialStream.forRun(new KernelDenialStream.Sources(
                        new KernelDenialStream.RunChild(run.id(), child.pid(), child.domainTag(), cwd, argv), c,
                        lines.orElseThrow().asFlux(), audit, supervisor.map(Supervisor::denials), KernelDenialStream.DEFAULT_WINDOW))
                        .doOnNext(denials).then())
                .orElse(Mono.empty())
                .onErrorResume(e -> {
                    // Never silent: the run goes on, and the person sees that denials may be missing.
                    say(run, passthrough, "magus: kernel-layer denials are no longer reported for this run: " + e);
                    return Mono.empty();
                })
                .cache();
        denialsDone.subscribe();
        Consumer<RunEvent.Output> line = o -> {
            run.journal().emit(o);
            lines.ifPresent(l -> {
                synchronized (l) {
                    l.tryEmitNext(o);
                }
            });
        };
        OutputPump.Progress progress = new OutputPump.Progress(2);
        Mono<Void> out = Mono.<Void>fromRunnable(() -> OutputPump.pump(child.stdout(), passthrough.stdout(),
                l -> line.accept(new RunEvent.Output(run.id(), run.journal().now(), RunEvent.Stream.STDOUT, l)), progress))
                .subscribeOn(threads.io());
        Mono<Void> err = Mono.<Void>fromRunnable(() -> OutputPump.pump(child.stderr(), passthrough.stderr(),
                l -> line.accept(new RunEvent.Output(run.id(), run.journal().now(), RunEvent.Stream.STDERR, l)), progress))
                .subscribeOn(threads.io());
        Mono<Void> drained = Mono.when(out, err).cache();
        drained.subscribe();
        feed(child, stdin);
        Exit exit = child.waitForAndKillGroup();
        // Killed and reaped: the group id is free for reuse, so the watchdog must forget it.
        watchdog.releaseGroup(child.pid());
        // Descendants that left the group go too, before the audits and the temp dir's removal:
        // the run's cgroup first, where it has one, then the subreaper's pass (adopted zombies reaped).
        Collected strays = RunCgroups.end(run.id(), STRAY_GRACE, watchdog).and(Strays.collect(run.id(), child.pid(), STRAY_GRACE));
        if (!strays.clean()) {
            // Fail closed: what survived can still write after the audits.
            run.journal().diagnostic(strays.diagnostic(run.id()));
        }
        // The run's processes are gone: the supervisor's reports complete once it has ended.
        supervisor.ifPresent(Supervisor::close);
        awaitDrain(drained, progress);
        child.close();
        lines.ifPresent(l -> {
            synchronized (l) {
                l.tryEmitComplete();
            }
        });
        awaitDenials(denialsDone);
        return new Ended(exit, !strays.clean());
    }

    /**
     * Waits up to {@link #DRAIN_GRACE} for the run's kernel-layer denials, then goes on without
     * them, with no timer (Reactor's {@code timeout} would schedule one for every run).
     * {@code denials} is cached and already subscribed, so giving up ends only this wait.
     */
    static void awaitDenials(Mono<Void> denials) {
        // Timed out: what is still to come is not waited for (see above).
        within(denials, DRAIN_GRACE);
    }

    /**
     * Whether {@code done} completed within {@code grace}; false only when the time ran out. An
     * error of {@code done} is thrown, as {@code block} throws it. Not {@code block(Duration)},
     * whose timeout is the same {@link IllegalStateException} as its refusal to block a
     * non-blocking thread: catching one would swallow the other, and the denials silently.
     */
    static boolean within(Mono<Void> done, Duration grace) {
        java.util.concurrent.CompletableFuture<Void> f = done.toFuture();
        try {
            f.get(grace.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
            return true;
        } catch (java.util.concurrent.TimeoutException timeout) {
            f.cancel(false);
            return false;
        } catch (java.util.concurrent.ExecutionException e) {
            throw reactor.core.Exceptions.propagate(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw reactor.core.Exceptions.propagate(e);
        }
    }

    /**
     * Waits for the pipes to drain: for as long as a pump is busy (handing on lines, waiting on
     * its pass-through's reader: a forwarded run's client, which the server never buffers
     * without bound, or a paused terminal) or still reads bytes, and {@link #DRAIN_GRACE} more
     * once the pumps only wait on pipes that do not end (a descendant that escaped the group may
     * hold one open for ever). A slow reader or a starved machine so loses no line; a reader
     * that goes away ends the wait, since its pass-through is then dropped.
     */
    static void awaitDrain(Mono<Void> drained, OutputPump.Progress progress) {
        long seen = progress.read();
        while (true) {
            if (within(drained, DRAIN_GRACE)) {
                return;
            }
            long now = progress.read();
            if (now == seen && !progress.busy()) {
                return;
            }
            seen = now;
        }
    }

    private void feed(Child child, Stdin stdin) {
        if (stdin instanceof Stdin.Bytes b) {
            threads.io().schedule(() -> {
                try (OutputStream in = child.stdin()) {
                    in.write(b.bytes());
                } catch (IOException e) {
                    // the child closed its input early; that is its business
                }
            });
        } else if (stdin instanceof Stdin.Stream s) {
            threads.io().schedule(() -> {
                try (OutputStream in = child.stdin(); InputStream theirs = s.in()) {
                    // Flushed per read: an interactive child sees each line as it is typed.
                    byte[] buf = new byte[8192];
                    for (int n; (n = theirs.read(buf)) >= 0; ) {
                        in.write(buf, 0, n);
                        in.flush();
                    }
                } catch (IOException e) {
                    // the child closed its input, or the stream ended
                }
            });
        } else if (stdin instanceof Stdin.Inherit && child.stdinIsPipe()) {
            // Only an input the child could not be given as its own descriptor (a device, a directory).
            threads.io().schedule(() -> {
                try (OutputStream in = child.stdin(); InputStream ours = System.in) {
                    ours.transferTo(in);
                } catch (IOException e) {
                    // the child closed its input, or ours ended
                }
            });
        }
        // Otherwise the child's descriptor 0 is /dev/null or a descriptor of its own: nothing to feed.
    }
}
