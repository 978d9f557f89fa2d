package dev.magus.orchestrator;

import dev.magus.events.MagusEnv;
import dev.magus.events.RunEvent;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.denials.audit.AuditDenialSource;
import dev.magus.landlock.launch.Launcher;
import dev.magus.landlock.launch.Spawner;
import dev.magus.orchestrator.git.GitConfigSource;
import dev.magus.orchestrator.network.HostResolver;
import dev.magus.orchestrator.pipeline.RunHandle;
import dev.magus.orchestrator.pipeline.RunStages;
import dev.magus.orchestrator.run.Host;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.RunServices;
import dev.magus.orchestrator.run.Submission;
import dev.magus.policy.LookPath;
import dev.magus.telemetry.dedupe.LandlockWarningOnce;
import dev.magus.telemetry.meters.MetricsSink;
import io.micrometer.core.instrument.MeterRegistry;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import reactor.core.publisher.Flux;

/**
 * Runs commands under their workspace's sandbox. Safe to share: each run has its own
 * config, policy, environment overlay and private temp dir, and nothing of one run reaches
 * another. One instance is one "invocation" for MGS2005, which it reports once.
 *
 * <p>A run is one Reactor chain ({@link dev.magus.orchestrator.pipeline.RunStages}); the spawn is
 * the builder's {@link Spawner}, the {@link Launcher} by default. A stage's refusal ends the run
 * before any spawn, its diagnostic in {@link Run#events()} and its exit status in
 * {@link Run#result()}. {@link #submit} starts a run that goes on by itself; {@link #run} is the
 * cold form whose subscription owns the run. Everything that blocks runs on magus's own I/O
 * threads, never on a non-blocking Reactor thread.
 */
public final class Orchestrator implements AutoCloseable {
    private final Host host;
    private final Clock clock;
    private final List<Consumer<RunEvent>> sinks;
    private final LandlockWarningOnce warningOnce;
    /**
     * Run ids are unguessable (64 random bits each, from {@link SecureRandom}): a child may put
     * any {@code MAGUS_RUN_ID} in its descendants' environment, and must not be able to name
     * another running run's id to pass its stray off as that run's.
     */
    private static final SecureRandom IDS = new SecureRandom();
    private final RunServices services;
    /** Whether {@link #services} is this orchestrator's own, made for it and closed with it. */
    private final boolean ownsServices;
    private final RunStages stages;

    private Orchestrator(Builder b) {
        this.host = b.host;
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
        boolean nested = MagusEnv.nested(host.env());
        this.warningOnce = LandlockWarningOnce.forInvocation(nested);
        Optional<GitConfigSource> git = LookPath.find("git", host.env().getOrDefault("PATH", "/usr/bin:/bin"), host.home())
                .map(GitConfigSource::new);
        this.ownsServices = b.services.isEmpty();
        this.services = b.services.orElseGet(RunServices::new);
        this.stages = new RunStages(b.probe, b.spawner, git, b.audit, b.resolver, services);
    }

    /** A fresh run id: 16 lowercase hex digits from {@link SecureRandom}. */
    static String newRunId() {
        byte[] b = new byte[8];
        IDS.nextBytes(b);
        return java.util.HexFormat.of().formatHex(b);
    }

    /** What this orchestrator's runs keep from one to the next ({@link Builder#services}). */
    public RunServices services() {
        return services;
    }

    public static Builder builder(Host host) {
        return new Builder(host);
    }

    /**
     * Hands {@code event} to this orchestrator's sinks (metrics, logs, NDJSON) as a run's events
     * are: for what happens outside a run, such as a binding-layer session's refusals.
     */
    public void report(RunEvent event) {
        Objects.requireNonNull(event, "event");
        for (Consumer<RunEvent> sink : sinks) {
            sink.accept(event);
        }
    }

    /** Starts the run and returns at once: {@code submit(Submission.of(request))}. */
    public Run submit(RunRequest request) {
        return submit(Submission.of(request));
    }

    /** Starts the run and returns at once. */
    public Run submit(Submission submission) {
        RunHandle run = handle(submission);
        stages.start(run, submission.request(), submission.passthrough(), submission.host().orElse(host));
        return run;
    }

    private RunHandle handle(Submission submission) {
        Objects.requireNonNull(submission, "submission");
        RunHandle run = new RunHandle(newRunId(), clock, warningOnce);
        run.journal().failOnDenial(submission.request().failOnDenial());
        for (Consumer<RunEvent> sink : sinks) {
            run.events().subscribe(sink);
        }
        run.events().subscribe(submission.observer());
        return run;
    }

    /**
     * Runs {@code work} on one of magus's I/O threads, where whatever blocks on the way to a run
     * belongs (a server reading a workspace's {@code magus.yaml} for its mode rules), so that the
     * run it then starts with {@link #submitHere} stays on the same thread.
     */
    public void execute(Runnable work) {
        Objects.requireNonNull(work, "work");
        services.threads().execute(work);
    }

    /**
     * {@link #submit(Submission)} with the run's stages on the calling thread, when it is one of
     * {@link #execute}'s (one hand-off between threads fewer per run): {@code started} gets the
     * run before its first stage, and this returns once the run has ended (or, cancelled before
     * its spawn, while its ending runs on another I/O thread). Called from any other thread, it is
     * {@code submit}: the run starts there and this returns at once, {@code started} having had it
     * first. Either way the run is the same: events, signals and cancellation behave as
     * {@code submit}'s.
     */
    public void submitHere(Submission submission, Consumer<Run> started) {
        Objects.requireNonNull(started, "started");
        RunHandle run = handle(submission);
        started.accept(run);
        Host runHost = submission.host().orElse(host);
        if (services.threads().onIoThread()) {
            stages.startHere(run, submission.request(), submission.passthrough(), runHost);
        } else {
            stages.start(run, submission.request(), submission.passthrough(), runHost);
        }
    }

    /**
     * The run as a cold Flux: nothing happens until a subscription, and each
     * subscription submits one run of {@code request} and streams its events, from Started (or a
     * refusal's diagnostics) to Exited, then completes.
     *
     * <p>The subscription owns the run: any cancellation ({@code dispose()}, {@code take(n)},
     * {@code timeout}, a downstream error) kills the child's process group ({@link Run#cancel()}),
     * or keeps it from starting; the run ends with 128+9 unless it had ended or was refused, an
     * Exited the builder's sinks see and the cancelled subscriber does not. A run from
     * {@link #submit(RunRequest)} goes on whoever subscribes.
     */
    public Flux<RunEvent> run(RunRequest request) {
        return run(Submission.of(request));
    }

    /** {@link #run(RunRequest)} for a whole submission: its pass-through, host and observer as {@link #submit(Submission)} takes them. */
    public Flux<RunEvent> run(Submission submission) {
        Objects.requireNonNull(submission, "submission");
        return Flux.defer(() -> {
            Run run = submit(submission);
            return run.events().doOnCancel(run::cancel);
        });
    }

    /**
     * Closes the services this orchestrator made for itself (given none by
     * {@link Builder#services}); services it was given are their owner's to close. Call once its
     * runs are over.
     */
    @Override
    public void close() {
        if (ownsServices) {
            services.close();
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
        private HostResolver resolver = HostResolver.system();
        private Optional<RunServices> services = Optional.empty();

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

        /**
         * How each run's network proxy resolves host names: the system's resolver unless set.
         * Tests map names to servers on loopback here.
         */
        public Builder resolver(HostResolver r) {
            this.resolver = Objects.requireNonNull(r);
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

        /**
         * What its runs keep from one to the next, shared with the owner's other orchestrators
         * ({@link RunServices}), which the owner closes; without it, this orchestrator makes its
         * own and closes it with itself ({@link Orchestrator#close}).
         */
        public Builder services(RunServices s) {
            this.services = Optional.of(Objects.requireNonNull(s, "services"));
            return this;
        }

        public Orchestrator build() {
            return new Orchestrator(this);
        }
    }
}
