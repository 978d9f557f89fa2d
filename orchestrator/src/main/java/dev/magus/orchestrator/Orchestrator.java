package dev.magus.orchestrator;

import dev.magus.env.child.SandboxDirs;
import dev.magus.env.overlay.Overlay;
import dev.magus.env.proc.ProcSocket;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.RunEvent;
import dev.magus.events.SandboxException;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.denials.DenialConfirmer;
import dev.magus.landlock.denials.KernelDenialStream;
import dev.magus.landlock.denials.audit.AuditDenialSource;
import dev.magus.landlock.launch.Child;
import dev.magus.landlock.launch.Confinement;
import dev.magus.landlock.launch.Exit;
import dev.magus.landlock.launch.Launcher;
import dev.magus.landlock.launch.Spawn;
import dev.magus.landlock.launch.SpawnRequest;
import dev.magus.landlock.launch.Spawner;
import dev.magus.landlock.launch.Stdio;
import dev.magus.orchestrator.git.GitConfigSource;
import dev.magus.orchestrator.orphans.StaleTemps;
import dev.magus.orchestrator.orphans.Watchdog;
import dev.magus.orchestrator.pipeline.ConfigStage;
import dev.magus.orchestrator.pipeline.EnvStage;
import dev.magus.orchestrator.pipeline.ExecStage;
import dev.magus.orchestrator.pipeline.OutputPump;
import dev.magus.orchestrator.pipeline.PolicyStage;
import dev.magus.orchestrator.pipeline.ProbeStage;
import dev.magus.orchestrator.pipeline.RunConfig;
import dev.magus.orchestrator.run.Passthrough;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.RunResult;
import dev.magus.orchestrator.run.Stdin;
import dev.magus.policy.HostFacts;
import dev.magus.policy.LookPath;
import dev.magus.policy.PolicyOrOff;
import dev.magus.policy.Verdict;
import dev.magus.policy.fs.Access;
import dev.magus.policy.mode.Mode;
import dev.magus.telemetry.dedupe.LandlockWarningOnce;
import dev.magus.telemetry.meters.MetricsSink;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.audit.ControlFileAudit;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Runs commands under their workspace's sandbox. Safe to share: each run has its own
 * config, policy, environment overlay and private temp dir, and nothing of one run reaches
 * another. One instance is one "invocation" for MGS2005, which it reports once.
 *
 * <p>The pipeline of a run, one stage each: resolve config ({@link ConfigStage}) → build policy
 * ({@link PolicyStage}) → env overlay ({@link EnvStage}) → exec check ({@link ExecStage}) → probe
 * ({@link ProbeStage}) → control-file snapshot ({@link ControlFileAudit}) → spawn ({@link Spawner}, the
 * {@link Launcher} unless the builder says otherwise) → stream → control-file audit. Each stage is a
 * function of immutable values; a stage that refuses ends the run
 * before any spawn, with its diagnostic in {@link Run#events()} and DESIGN.md's exit status in
 * {@link Run#result()}. {@link #submit} starts a run that goes on by itself; {@link #run} is
 * the cold form whose subscription owns the run. Everything that blocks (the spawn, pipes,
 * waiting) runs on magus's own I/O threads, never on a non-blocking Reactor thread.
 */
public final class Orchestrator {
    /** How long, after the child exits, its output may still drain from descendants holding the pipes. */
    static final Duration DRAIN_GRACE = Duration.ofSeconds(2);
    /** How long the end of the first run waits for the sweep of stale private temp dirs it started. */
    static final Duration SWEEP_GRACE = Duration.ofSeconds(2);
    /** How long a spawn waits for the watchdog's loop to be up; it started with the run's first stage. */
    static final Duration WATCHDOG_GRACE = Duration.ofSeconds(2);

    private final Host host;
    private final LandlockProbe probe;
    private final Spawner spawner;
    private final Clock clock;
    private final List<Consumer<RunEvent>> sinks;
    private final LandlockWarningOnce warningOnce;
    private final Optional<GitConfigSource> git;
    private final Optional<AuditDenialSource> audit;
    /** Kills a run's group and removes its private temp dir if magus dies first; one per process. */
    private final Watchdog watchdog = Watchdog.shared();
    /**
     * Where everything that blocks runs: each run's stages and wait, and one reader per pipe.
     * Not {@code boundedElastic}: a run holds its thread while its child lives, so with a
     * capped pool enough concurrent runs would leave their pipe readers queued behind them,
     * the children blocked on full pipes, and every run waiting for ever. Threads here live
     * exactly as long as the blocking work (idle ones go after a minute), so their number
     * follows the live children: about three each.
     */
    private static final Scheduler IO = Schedulers.fromExecutorService(
            Executors.newCachedThreadPool(Orchestrator::ioThread), "magus-io");
    private static final AtomicLong IO_THREADS = new AtomicLong();
    private final AtomicLong sequence = new AtomicLong();
    private final String invocation = UUID.randomUUID().toString().substring(0, 8);

    private Orchestrator(Builder b) {
        this.host = b.host;
        this.probe = b.probe;
        this.spawner = b.spawner;
        this.clock = b.clock;
        List<Consumer<RunEvent>> all = new ArrayList<>(b.sinks);
        // The metrics sink is made per build, never added to the builder's own list: a second
        // build() of the same builder would otherwise count every run twice.
        b.registry.ifPresent(r -> {
            MetricsSink metrics = new MetricsSink(r, b.clock);
            metrics.landlockAbi(b.probe.abi());
            all.add(metrics);
        });
        this.sinks = List.copyOf(all);
        this.audit = b.audit;
        boolean nested = host.env().containsKey(ConfigStage.RUN_ID);
        this.warningOnce = LandlockWarningOnce.forInvocation(nested);
        this.git = LookPath.find("git", host.env().getOrDefault("PATH", "/usr/bin:/bin"), host.home())
                .map(GitConfigSource::new);
    }

    private static Thread ioThread(Runnable r) {
        Thread t = new Thread(r, "magus-io-" + IO_THREADS.incrementAndGet());
        t.setDaemon(true);
        return t;
    }

    public static Builder builder(Host host) {
        return new Builder(host);
    }

    /** Starts the run and returns at once. */
    public Run submit(RunRequest request) {
        return submit(request, Passthrough.none());
    }

    /**
     * Starts the run and returns at once; the child's output also goes, byte for byte, to
     * {@code passthrough} (a command line's own stdout and stderr).
     */
    public Run submit(RunRequest request, Passthrough passthrough) {
        Objects.requireNonNull(passthrough, "passthrough");
        RunHandle run = new RunHandle(invocation + "-" + sequence.incrementAndGet(), clock, warningOnce);
        for (Consumer<RunEvent> sink : sinks) {
            run.events().subscribe(sink);
        }
        IO.schedule(() -> execute(run, request, passthrough));
        return run;
    }

    /**
     * The run as DESIGN.md's cold Flux: nothing happens until a subscription, and each
     * subscription submits one run of {@code request} and streams its events, from Started (or a
     * refusal's diagnostics) to Exited, then completes.
     *
     * <p>The subscription owns the run: cancelling it cancels the run, killing the child's whole
     * process group with SIGKILL ({@link Run#cancel()}). Every way Reactor cancels counts:
     * {@code dispose()}, {@code take(n)} once it has its events, {@code timeout}, an error thrown
     * by a downstream operator. A cancellation that arrives before the spawn keeps the child from
     * starting, or kills it as soon as it is attached. A cancelled run ends with 128+9, unless it
     * had already ended by itself or was refused (a refused run has nothing to kill); the
     * cancelled subscriber does not see that Exited, the builder's sinks do. Completion kills nothing: the child has
     * already exited and been reaped by then.
     *
     * <p>Contrast {@link #submit(RunRequest)}: that run goes on whether or not anyone subscribes,
     * and cancelling a subscription to its {@link Run#events()} ends only that replay.
     */
    public Flux<RunEvent> run(RunRequest request) {
        return run(request, Passthrough.none());
    }

    /**
     * {@link #run(RunRequest)}, with the child's output also going, byte for byte, to
     * {@code passthrough}, as {@link #submit(RunRequest, Passthrough)} does.
     */
    public Flux<RunEvent> run(RunRequest request, Passthrough passthrough) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(passthrough, "passthrough");
        return Flux.defer(() -> {
            Run run = submit(request, passthrough);
            return run.events().doOnCancel(run::cancel);
        });
    }

    /** How a run ended, decided by the stages; emitted only after the run's private temp dir is gone. */
    private record Ending(int status, int signal) {
        static Ending refused(int status) {
            return new Ending(status, 0);
        }
    }

    /**
     * What one execution holds while its stages run: the private temp dir to remove, and the
     * diagnostics raised before the spawn, held back so that a started run's events begin with
     * Started (a refused run has no Started; they then precede its Exited).
     */
    private static final class Attempt {
        Path privateTemp;
        /** The sweep of stale private temp dirs this run started, if it was the first of the process. */
        CompletableFuture<List<Path>> sweep = CompletableFuture.completedFuture(List.of());
        final List<Diagnostic> pending = new ArrayList<>();

        /**
         * Waits for the sweep, bounded: it runs beside the stages and is almost always done, but
         * a command line would otherwise exit under it; what a slow one leaves, the next run sweeps.
         */
        void awaitSweep() {
            try {
                sweep.get(SWEEP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                // see above
            }
        }

        void flush(RunJournal journal) {
            pending.forEach(journal::diagnostic);
            pending.clear();
        }
    }

    private void execute(RunHandle run, RunRequest request, Passthrough passthrough) {
        Attempt attempt = new Attempt();
        Ending ending = Ending.refused(125);
        try {
            ending = stages(run, request, passthrough, attempt);
        } catch (SandboxException e) {
            attempt.flush(run.journal());
            run.journal().diagnostic(e.diagnostic());
            ending = Ending.refused(e.code() == Code.MGS2007 ? 126 : 125);
        } catch (IOException | RuntimeException | Error e) {
            // Whatever broke, the run ends: a caller waiting on result() is never left hanging.
            attempt.flush(run.journal());
            say(run, passthrough, Unexpected.line(e));
            ending = Ending.refused(125);
        } finally {
            // Before the exit event: whoever sees the run end finds its private temp dir gone.
            if (attempt.privateTemp != null) {
                Trees.deleteQuietly(attempt.privateTemp);
                watchdog.releaseDir(attempt.privateTemp);
            }
            attempt.awaitSweep();
            run.journal().exit(ending.status(), ending.signal());
        }
    }

    /**
     * One line of magus's own on the child's stderr: an event, and on the pass-through too,
     * since a caller that passes the child's output through prints no output events.
     */
    private static void say(RunHandle run, Passthrough passthrough, String line) {
        run.journal().output(RunEvent.Stream.STDERR, line);
        passthrough.stderr().ifPresent(err -> {
            try {
                err.write((line + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
                err.flush();
            } catch (IOException e) {
                // the event carries it anyway
            }
        });
    }

    private Ending stages(RunHandle run, RunRequest request, Passthrough passthrough, Attempt attempt) throws IOException {
        RunConfig config = ConfigStage.resolve(run.id(), request, host.env());
        // Off this thread, beside the stages below; the spawn waits for it (see Watchdog).
        watchdog.start(IO::schedule);
        boolean sandboxed = config.mode() != Mode.OFF;
        Path privateTemp = sandboxed ? HostDirs.createPrivateTemp(host) : null;
        attempt.privateTemp = privateTemp;
        if (privateTemp != null) {
            watchdog.guardDir(privateTemp);
            attempt.sweep = StaleTemps.sweepOnce(host.tempBase(), host.uid(), IO::schedule);
        }
        HostFacts facts = host.facts(privateTemp != null ? privateTemp : host.tempBase());
        if (sandboxed) {
            HostDirs.createCacheDir(facts.magusCacheDir(), host.env());
        }
        PolicyOrOff policy = PolicyStage.build(config, facts);
        Overlay overlay = EnvStage.overlay(request);

        String command = request.argv().get(0);
        ExecStage.Target target = ExecStage.resolve(command, EnvStage.lookupPath(overlay, host.env()),
                config.workingDir(), policy);
        if (target instanceof ExecStage.Target.Unrunnable u) {
            say(run, passthrough, "magus: " + u.message());
            return Ending.refused(u.status());
        }
        if (target instanceof ExecStage.Target.Denied denied) {
            run.journal().diagnostic(denied.diagnostic());
            return Ending.refused(126);
        }
        Path exe = ((ExecStage.Target.Runnable) target).executable();
        boolean recursive = host.launcher().map(l -> ProcSocket.isRecursiveMagus(exe, l)).orElse(false);
        Optional<Path> gitConfig = sandboxed ? Optional.of(writeGitConfig(privateTemp)) : Optional.empty();
        SandboxDirs dirs = new SandboxDirs(privateTemp != null ? privateTemp : host.tempBase(),
                facts.magusCacheDir(), host.stateDir());
        EnvStage.ChildEnvPlan env = EnvStage.build(config, policy, host.env(), overlay, dirs, recursive, gitConfig);
        attempt.pending.addAll(env.diagnostics());

        Spawn spawn;
        boolean guarded;
        Optional<DenialConfirmer> denials = Optional.empty();
        Optional<ControlFileAudit.Baseline> controlFiles = Optional.empty();
        // Loaded and warmed before the spawn is decided, so a signal meanwhile still cancels it.
        spawner.prepare();
        try (Confinement confinement = ProbeStage.prepare(policy, probe)) {
            confinement.warning().ifPresent(attempt.pending::add);
            // A child spawned before the loop runs would outlive a kill -9 of magus.
            guarded = watchdog.ready(WATCHDOG_GRACE);
            int cancelledBy = run.beginSpawn();
            if (cancelledBy != 0) {
                attempt.flush(run.journal());
                return new Ending(128 + cancelledBy, cancelledBy);
            }
            if (confinement instanceof Confinement.Kernel && !recursive) {
                // Only Landlock's refusals are worth inferring from the child's output; a nested
                // magus reports its own children's, and they would be counted twice.
                denials = Optional.of(confirmer(policy));
            }
            // Last before the spawn: the kernel cannot refuse a write to a control file inside
            // the workspace grant, so what the child does to them is found by comparing.
            controlFiles = policy.policy().map(p -> ControlFileAudit.of(p.controlFiles())
                    .keepingWalksIn(new StateDir(host.stateDir())).before());
            Stdio stdio = request.stdin() instanceof Stdin.None ? Stdio.NULL_INPUT : Stdio.PIPES;
            spawn = spawner.spawn(new SpawnRequest(exe, request.argv(), env.variables(),
                    config.workingDir(), stdio), confinement);
        }
        if (spawn instanceof Spawn.NotStarted ns) {
            attempt.flush(run.journal());
            ns.diagnostic().ifPresent(run.journal()::diagnostic);
            if (ns.diagnostic().isEmpty()) {
                say(run, passthrough, "magus: " + command + ": " + ns.message());
            }
            return Ending.refused(ns.status());
        }
        Child child = ((Spawn.Started) spawn).child();
        // First, before anything that takes time: a signal queued since beginSpawn reaches the
        // group now, and from here a kill -9 of magus takes the group with it.
        run.attach(child);
        watchdog.guardGroup(child.pid());
        run.journal().emit(new RunEvent.Started(run.id(), run.journal().now(), request.argv(),
                config.mode().spelling(), child.pid()));
        attempt.flush(run.journal());
        if (!guarded) {
            // Not a refusal: the watchdog only matters if magus is killed. But never silent.
            say(run, passthrough, "magus: " + watchdog.failure().orElse("no watchdog")
                    + "; if magus is killed, this run's processes and private temp dir may outlive it");
        }
        Exit exit = stream(run, child, request.stdin(), passthrough, denials, config.workingDir());
        int status = exit.status();
        if (controlFiles.isPresent() && audit(run, passthrough, controlFiles.get(), config) && status == 0) {
            // DESIGN.md, exit status: a run the audits fail exits 1 unless the child already failed.
            status = 1;
        }
        return new Ending(status, exit.signal());
    }

    /**
     * The control-file audit, once the child's process group is gone: each control file the
     * run created, changed or removed is an MGS2002 (layer audit), put back unless the
     * workspace says {@code sandbox.controlFiles: report}. Whether the run fails for it: an
     * audit that could not finish fails it too, since nothing then says the files are intact.
     */
    private static boolean audit(RunHandle run, Passthrough passthrough, ControlFileAudit.Baseline baseline, RunConfig config) {
        try {
            ControlFileAudit.Report report = baseline.after(config.config().controlFiles());
            report.diagnostics().forEach(run.journal()::diagnostic);
            return report.changed();
        } catch (RuntimeException e) {
            say(run, passthrough, "magus: the control-file audit could not finish, so the run fails: " + e);
            return true;
        }
    }

    /**
     * Pumps the pipes, feeds stdin, waits, and returns once the output has drained and every
     * kernel-layer denial it reported has been confirmed (and, with an audit source, merged
     * with the kernel's own records). When the child ends, what it left running in its process
     * group is killed before it is reaped, so background jobs holding the pipes do not delay
     * the end of the run; only descendants that left the group can still hold them, for at
     * most {@link #DRAIN_GRACE}.
     */
    private Exit stream(RunHandle run, Child child, Stdin stdin, Passthrough passthrough, Optional<DenialConfirmer> confirmer,
            Path cwd) {
        // Only the denial inference reads the lines back; without it nothing is buffered twice.
        Optional<Sinks.Many<RunEvent.Output>> lines = confirmer.map(c -> Sinks.many().unicast().<RunEvent.Output>onBackpressureBuffer());
        Mono<Void> denialsDone = confirmer
                .map(c -> KernelDenialStream.forRun(run.id(), child.pid(), cwd, c, lines.orElseThrow().asFlux(), audit,
                        KernelDenialStream.DEFAULT_WINDOW).doOnNext(run.journal()::diagnostic).then())
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
        Mono<Void> out = Mono.<Void>fromRunnable(() -> OutputPump.pump(child.stdout(), passthrough.stdout(),
                l -> line.accept(new RunEvent.Output(run.id(), run.journal().now(), RunEvent.Stream.STDOUT, l))))
                .subscribeOn(IO);
        Mono<Void> err = Mono.<Void>fromRunnable(() -> OutputPump.pump(child.stderr(), passthrough.stderr(),
                l -> line.accept(new RunEvent.Output(run.id(), run.journal().now(), RunEvent.Stream.STDERR, l))))
                .subscribeOn(IO);
        Mono<Void> drained = Mono.when(out, err).cache();
        drained.subscribe();
        feed(child, stdin);
        Exit exit = child.waitForAndKillGroup();
        // Killed and reaped: the group id is free for reuse, so the watchdog must forget it.
        watchdog.releaseGroup(child.pid());
        drained.timeout(DRAIN_GRACE, Mono.empty()).block();
        child.close();
        lines.ifPresent(l -> {
            synchronized (l) {
                l.tryEmitComplete();
            }
        });
        denialsDone.timeout(DRAIN_GRACE, Mono.empty()).block();
        return exit;
    }

    /** The policy's binding-layer check, as the seam the denial inference confirms each candidate with. */
    static DenialConfirmer confirmer(PolicyOrOff policy) {
        return (op, path, cwd) -> {
            Access access = switch (op) {
                case READ -> Access.READ;
                case WRITE -> Access.WRITE;
                case EXEC -> Access.EXEC;
                case NONE -> null;
            };
            if (access == null) {
                return Optional.empty();
            }
            return policy.check(access, path, cwd) instanceof Verdict.Denied d ? Optional.of(d.diagnostic()) : Optional.empty();
        };
    }

    private void feed(Child child, Stdin stdin) {
        if (stdin instanceof Stdin.Bytes b) {
            IO.schedule(() -> {
                try (OutputStream in = child.stdin()) {
                    in.write(b.bytes());
                } catch (IOException e) {
                    // the child closed its input early; that is its business
                }
            });
        } else if (stdin instanceof Stdin.Inherit) {
            IO.schedule(() -> {
                try (OutputStream in = child.stdin(); InputStream ours = System.in) {
                    ours.transferTo(in);
                } catch (IOException e) {
                    // the child closed its input, or ours ended
                }
            });
        }
    }

    private Path writeGitConfig(Path privateTemp) {
        String text = git.map(g -> g.read(host.home(), host.env()).render()).orElse("");
        try {
            return Files.writeString(privateTemp.resolve("gitconfig"), text);
        } catch (IOException e) {
            // A full temp dir: the run cannot have its files, so it does not start.
            throw HostDirs.tempFailure(host, "cannot write the run's git config in its private temp dir " + privateTemp,
                    IoFailures.reason(e));
        }
    }

    /**
     * The run object handed to callers. A signal's effect depends on how far the run has got,
     * and each step is taken under one lock so that no signal falls between two of them: before
     * the spawn is decided, the first signal cancels the run (no child starts; it ends with
     * 128+N); from the decision until the child is attached, signals are queued and sent to its
     * group the moment it is; after that they go straight to the group, until it is reaped.
     */
    static final class RunHandle implements Run {
        private final RunJournal journal;
        private final Flux<RunEvent> events;
        private Child child;
        private boolean spawning;
        /** The signal that cancelled the run before its spawn, or 0. */
        private int cancelledBy;
        private final List<Integer> queued = new ArrayList<>();

        RunHandle(String id, Clock clock, LandlockWarningOnce once) {
            this.journal = new RunJournal(id, clock);
            this.events = journal.events().transform(once);
        }

        RunJournal journal() {
            return journal;
        }

        /**
         * Decides to spawn: from here a signal waits for the child instead of cancelling.
         *
         * @return the signal that cancelled the run already, or 0 when the spawn may go ahead
         */
        synchronized int beginSpawn() {
            if (cancelledBy == 0) {
                spawning = true;
            }
            return cancelledBy;
        }

        /** The child is running: what was queued since {@link #beginSpawn()} reaches its group now, in order. */
        synchronized void attach(Child c) {
            this.child = c;
            if (cancelledBy != 0) {
                // Attached without beginSpawn: whatever started it, a cancelled run has no child.
                c.killGroup(cancelledBy);
            }
            for (int signal : queued) {
                c.killGroup(signal);
            }
            queued.clear();
        }

        @Override
        public String id() {
            return journal.runId();
        }

        @Override
        public Flux<RunEvent> events() {
            return events;
        }

        @Override
        public Mono<RunResult> result() {
            return journal.result();
        }

        @Override
        public void cancel() {
            signal(Child.SIGKILL);
        }

        @Override
        public synchronized void signal(int signal) {
            if (signal <= 0 || signal > 64) {
                throw new IllegalArgumentException("not a signal: " + signal);
            }
            if (child != null) {
                child.killGroup(signal);
            } else if (spawning) {
                queued.add(signal);
            } else if (cancelledBy == 0) {
                cancelledBy = signal;
            }
        }
    }

    /** Collaborators, injected. */
    public static final class Builder {
        private final Host host;
        private LandlockProbe probe = LandlockProbe.kernel();
        private Spawner spawner = Launcher.deferred();
        private Clock clock = Clock.systemUTC();
        private final List<Consumer<RunEvent>> sinks = new ArrayList<>();
        private Optional<AuditDenialSource> audit = Optional.empty();
        private Optional<MeterRegistry> registry = Optional.empty();

        private Builder(Host host) {
            this.host = Objects.requireNonNull(host, "host");
        }

        public Builder probe(LandlockProbe p) {
            this.probe = Objects.requireNonNull(p);
            return this;
        }

        /**
         * What starts the children: the process's {@link Launcher} (created at the first spawn)
         * unless set. Tests give a fake here to run the pipeline on hosts without Landlock.
         */
        public Builder spawner(Spawner s) {
            this.spawner = Objects.requireNonNull(s);
            return this;
        }

        public Builder clock(Clock c) {
            this.clock = Objects.requireNonNull(c);
            return this;
        }

        /**
         * Records every run in Micrometer ({@code magus.runs}, {@code magus.diagnostics},
         * {@code magus.env.dropped}, and {@code magus.landlock.abi} from the probe).
         */
        public Builder meterRegistry(MeterRegistry registry) {
            this.registry = Optional.of(registry);
            return this;
        }

        /** Every run's events go to {@code sink} (metrics, logs, NDJSON), MGS2005 already de-duplicated. */
        public Builder sink(Consumer<RunEvent> sink) {
            sinks.add(Objects.requireNonNull(sink));
            return this;
        }

        /**
         * Landlock's own audit records, for exact kernel-layer denials next to the ones inferred
         * from output. The caller opens (and closes) the source: it may need audit switched on.
         */
        public Builder audit(AuditDenialSource source) {
            this.audit = Optional.of(source);
            return this;
        }

        public Orchestrator build() {
            return new Orchestrator(this);
        }
    }
}
