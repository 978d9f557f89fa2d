package dev.magus.orchestrator.pipeline;


import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.denials.audit.AuditDenialSource;
import dev.magus.landlock.launch.Confinement;
import dev.magus.landlock.launch.Spawner;
import dev.magus.orchestrator.git.GitConfigSource;
import dev.magus.orchestrator.network.HostResolver;
import dev.magus.orchestrator.orphans.Watchdog;
import dev.magus.orchestrator.threads.IoThreads;
import dev.magus.orchestrator.pipeline.EnvStage.ChildEnvPlan;
import dev.magus.orchestrator.run.Host;
import dev.magus.orchestrator.run.Passthrough;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.RunServices;
import dev.magus.policy.PolicyOrOff;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Mono;

/**
 * The run as one Reactor chain on magus's I/O threads, written once here ({@link #stages}):
 * config → host → policy → aim → env overlay → proxy → probe → spawn → stream → audits. The
 * stages up to the probe build a {@link RunPlan}, which the spawn and the child's streams
 * ({@link ChildLaunch}) and the audits ({@link RunChecks}) take. The run's {@link Attempt} is
 * the chain's resource, released however it ends ({@code usingWhen}): completed, refused (a
 * stage's {@link Refusal} is the chain's error signal), broken, or cancelled. A signal before the spawn disposes the
 * subscription ({@link RunHandle#signal}): the stage running then finishes, none after it
 * starts, no child starts, and the run ends with 128+N.
 */
public final class RunStages {
    private final LandlockProbe probe;
    private final Optional<GitConfigSource> git;
    /** Kills a run's group and removes its private temp dir if magus dies first; the owner's. */
    private final Watchdog watchdog;
    /** Where everything of a run that blocks runs; the owner's. */
    private final IoThreads threads;
    /** How the run's proxy resolves names: the system's, or a test's map to loopback servers. */
    private final HostResolver resolver;
    private final ChildLaunch launch;
    /** What runs keep from one to the next, the owner's. */
    private final RunServices services;

    public RunStages(LandlockProbe probe, Spawner spawner, Optional<GitConfigSource> git,
            Optional<AuditDenialSource> audit, HostResolver resolver, RunServices services) {
        this.probe = probe;
        this.git = git;
        this.watchdog = services.watchdog();
        this.threads = services.threads();
        this.resolver = resolver;
        this.services = services;
        this.launch = new ChildLaunch(spawner, watchdog, new ChildStreams(watchdog, threads, audit), services.audits());
    }

    /** Starts the run's chain and hands its subscription to the run, whose signals dispose it until the spawn. */
    public void start(RunHandle run, RunRequest request, Passthrough passthrough, Host host) {
        Disposable subscription = execution(run, request, passthrough, host).subscribe(ending -> { }, reported -> { });
        run.pipeline(subscription);
    }

    /**
     * {@link #start}, with the chain on the calling thread, one of magus's I/O threads: no hand-off
     * to another of them (a wake-up and the scheduler's bookkeeping per run). Returns
     * once the chain has ended: the run's Exited is emitted by then, unless a signal cancelled
     * it before its spawn, whose ending ({@link Attempt#cancelled}) runs on another I/O thread as
     * it does for {@link #start}.
     *
     * <p>The run is handed its subscription as the chain's first act, once the attempt exists
     * and its release is in place, as {@link #start} hands it over once subscribed: a signal that
     * came before (the caller had the run already) disposes it there, and the run ends with
     * 128+N through {@link Attempt#cancelled}; none before that could find a chain without its
     * release.
     */
    public void startHere(RunHandle run, RunRequest request, Passthrough passthrough, Host host) {
        BaseSubscriber<Attempt.Ending> subscriber = new BaseSubscriber<>() {
            @Override
            protected void hookOnError(Throwable reported) {
                // Reported by the release, as start's error consumer leaves it.
            }
        };
        chain(run, request, passthrough, host, false, () -> run.pipeline(subscriber)).subscribe(subscriber);
    }

    /**
     * The whole run, cold: each subscription is one execution. Emits the run's ending; fails with
     * the stage's refusal (or magus's failure), which the release has reported by then.
     */
    Mono<Attempt.Ending> execution(RunHandle run, RunRequest request, Passthrough passthrough, Host host) {
        return chain(run, request, passthrough, host, true, () -> { });
    }

    /**
     * {@link #execution}, its stages on magus's I/O threads ({@code hop}) or on the subscribing
     * thread; {@code subscribed} runs first, on the stages' thread, with the release in place.
     */
    private Mono<Attempt.Ending> chain(RunHandle run, RunRequest request, Passthrough passthrough, Host host, boolean hop,
            Runnable subscribed) {
        return Mono.usingWhen(Mono.fromSupplier(() -> new Attempt(run, passthrough, watchdog, threads, services.temps())),
                attempt -> {
                    Mono<Attempt.Ending> stages = Mono.defer(() -> {
                        subscribed.run();
                        return stages(run, request, passthrough, host, attempt);
                    });
                    return hop ? stages.subscribeOn(threads.stages()) : stages;
                },
                Attempt::completed,
                Attempt::failed,
                Attempt::cancelled);
    }

    /**
     * The run, stage by stage, each stage one step of the attempt: a signal between two of them
     * stops the chain at the next (until the spawn, from which signals reach the child). Up to the
     * spawn each stage is a function of the {@link RunPlan} so far that returns it with its own part
     * decided; what a stage acquires, the attempt owns in the same step, before anything can refuse;
     * what a stage reports is held back until the run has started (or has ended without starting).
     */
    private Mono<Attempt.Ending> stages(RunHandle run, RunRequest request, Passthrough passthrough, Host host,
            Attempt attempt) {
        // config: magus.yaml, the floor and the request.
        return attempt.step(() -> ConfigStage.resolve(run.id(), request, host.env(), host.home(), services.workspaces()))
                // host: the private temp dir and the host facts under it.
                .flatMap(config -> attempt.step(() -> {
                    // Off this thread, beside the stages below; the spawn waits for it (see Watchdog).
                    watchdog.start(threads.io()::schedule);
                    return HostStage.facts(config, attempt.ownTemp(HostStage.privateTemp(config, host), host), host);
                }))
                // policy, and the leased job's trail.
                .flatMap(plan -> attempt.step(() -> {
                    PolicyOrOff policy = PolicyStage.build(plan.config(), plan.facts());
                    attempt.holdBack(PolicyStage.untrustedDiagnostics(policy));
                    return plan.governed(policy, attempt.ownTrail(LeaseTrail.attach(run.journal(), policy, run.id(),
                            plan.config().workingDir(), request.argv())));
                }))
                // aim: the command on the child's PATH, checked against the exec rules.
                .flatMap(plan -> attempt.step(() -> ExecStage.aim(plan, request, host)))
                // env overlay: the child's environment.
                .flatMap(plan -> attempt.step(() -> {
                    ChildEnvPlan env = EnvStage.childEnv(plan, host, git);
                    attempt.holdBack(env.diagnostics());
                    return plan.equipped(env, OptionalInt.empty());
                }))
                // proxy: under network mode proxy, the run's own, and the child pointed at it.
                .flatMap(plan -> attempt.step(() -> ProxyStage.equip(plan, plan.env(),
                        attempt.ownProxy(ProxyStage.start(plan.policy(), services.proxyLoops(), resolver,
                                // The proxy's event loop must not block on a sink: its refusals are emitted from an I/O thread.
                                d -> threads.io().schedule(() -> run.journal().diagnostic(d)))))))
                // A step of its own: a signal while the spawner warms up stops the run before its ruleset.
                .flatMap(plan -> attempt.step(() -> {
                    launch.prepare();
                    return plan;
                }))
                // probe: the kernel layer (the Landlock ruleset and the seccomp filter), or none.
                .flatMap(plan -> attempt.step(() -> {
                    Confinement confinement = attempt.ownConfinement(ProbeStage.prepare(plan.policy(), probe,
                            plan.proxyPort()));
                    confinement.warning().ifPresent(w -> attempt.holdBack(List.of(w)));
                    return plan.confined(confinement);
                }))
                // spawn: the confined child; the run has started.
                .flatMap(plan -> attempt.step(() -> launch.spawn(run, request, passthrough, host, plan, attempt)))
                // stream: its output pumped and its denials reported, until it and its strays are gone.
                .flatMap(launched -> attempt.step(() -> launch.stream(run, request, passthrough, launched)))
                // the audits: control files, descendant projects, lease writes.
                .flatMap(streamed -> attempt.step(() -> RunChecks.after(run, passthrough, streamed)))
                .doOnNext(attempt::conclude);
    }
}
