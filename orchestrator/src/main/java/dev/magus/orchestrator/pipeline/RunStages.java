package dev.magus.orchestrator.pipeline;

import dev.magus.orchestrator.run.Host;

import static dev.magus.orchestrator.pipeline.IoThreads.IO;
import static dev.magus.orchestrator.pipeline.IoThreads.STAGES;

import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.launch.Confinement;
import dev.magus.landlock.launch.Spawner;
import dev.magus.orchestrator.pipeline.RunPlan.Equipped;
import dev.magus.orchestrator.pipeline.RunPlan.Governed;
import dev.magus.orchestrator.git.GitConfigSource;
import dev.magus.orchestrator.network.HostResolver;
import dev.magus.orchestrator.orphans.Watchdog;
import dev.magus.orchestrator.pipeline.EnvStage.ChildEnvPlan;
import dev.magus.orchestrator.run.Passthrough;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.policy.PolicyOrOff;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Mono;

/**
 * One execution of a run as a Reactor chain on magus's I/O threads: the {@link PlanStages} build
 * a {@link RunPlan} ({@code Mono<RunPlan>}), which flat-maps into the spawn and the child's
 * streams ({@link ChildLaunch}); the run's {@link Attempt} is the chain's resource, released
 * however it ends ({@code usingWhen}): completed, refused (a stage's {@link Refusal} is the
 * chain's error signal), broken, or cancelled. A signal before the spawn disposes the
 * subscription ({@link RunHandle#signal}): the stage running then finishes, none after it
 * starts, no child starts, and the run ends with 128+N.
 */
public final class RunStages {
    private final LandlockProbe probe;
    private final Optional<GitConfigSource> git;
    /** Kills a run's group and removes its private temp dir if magus dies first; one per process. */
    private final Watchdog watchdog;
    /** How the run's proxy resolves names: the system's, or a test's map to loopback servers. */
    private final HostResolver resolver;
    private final ChildLaunch launch;

    public RunStages(LandlockProbe probe, Spawner spawner, Optional<GitConfigSource> git, Watchdog watchdog, ChildStreams streams,
            HostResolver resolver) {
        this.probe = probe;
        this.git = git;
        this.watchdog = watchdog;
        this.resolver = resolver;
        this.launch = new ChildLaunch(spawner, watchdog, streams);
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
        return Mono.usingWhen(Mono.fromSupplier(() -> new Attempt(run, passthrough, watchdog)),
                attempt -> {
                    Mono<Attempt.Ending> stages = Mono.defer(() -> {
                        subscribed.run();
                        return plan(run, request, host, attempt);
                    })
                            .flatMap(plan -> attempt.step(() -> launch.spawn(run, request, passthrough, host, plan, attempt)))
                            .flatMap(launched -> attempt.step(() -> launch.stream(run, request, passthrough, launched)))
                            .doOnNext(attempt::conclude);
                    return hop ? stages.subscribeOn(STAGES) : stages;
                },
                Attempt::completed,
                Attempt::failed,
                Attempt::cancelled);
    }

    /**
     * The plan, stage by stage (see {@link PlanStages}), each stage one step of the attempt: a
     * signal between two of them stops the chain at the next. What a stage acquires, the attempt
     * owns in the same step, before anything can refuse.
     */
    Mono<RunPlan> plan(RunHandle run, RunRequest request, Host host, Attempt attempt) {
        return attempt.step(() -> PlanStages.config(run.id(), request, host))
                .flatMap(config -> attempt.step(() -> {
                    // Off this thread, beside the stages below; the spawn waits for it (see Watchdog).
                    watchdog.start(IO::schedule);
                    return PlanStages.premises(config, attempt.ownTemp(PlanStages.privateTemp(config, host), host), host);
                }))
                .flatMap(premises -> attempt.step(() -> {
                    PolicyOrOff policy = PlanStages.policy(premises);
                    attempt.holdBack(dev.magus.orchestrator.pipeline.PolicyStage.untrustedDiagnostics(policy));
                    return new Governed(premises, policy, attempt.ownTrail(LeaseTrail.attach(run.journal(), policy,
                            run.id(), premises.config().workingDir(), request.argv())));
                }))
                .flatMap(governed -> attempt.step(() -> PlanStages.aim(governed, request, host)))
                .flatMap(aimed -> attempt.step(() -> {
                    ChildEnvPlan env = PlanStages.childEnv(aimed, host, git);
                    attempt.holdBack(env.diagnostics());
                    return new Equipped(aimed, env, OptionalInt.empty());
                }))
                .flatMap(equipped -> attempt.step(() -> PlanStages.equip(equipped.aimed(), equipped.env(),
                        attempt.ownProxy(PlanStages.proxy(equipped.aimed().governed().policy(), resolver,
                                // The proxy's event loop must not block on a sink: its refusals are emitted from an I/O thread.
                                d -> IO.schedule(() -> run.journal().diagnostic(d)))))))
                .flatMap(equipped -> attempt.step(() -> {
                    // A step of its own: a signal while the spawner warms up stops the run before its ruleset.
                    launch.prepare();
                    return equipped;
                }))
                .flatMap(equipped -> attempt.step(() -> {
                    Confinement confinement = attempt.ownConfinement(PlanStages.confinement(equipped, probe));
                    confinement.warning().ifPresent(w -> attempt.holdBack(List.of(w)));
                    return new RunPlan(equipped, confinement);
                }));
    }
}
