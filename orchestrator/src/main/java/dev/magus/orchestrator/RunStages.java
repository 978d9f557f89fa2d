package dev.magus.orchestrator;

import static dev.magus.orchestrator.IoThreads.IO;
import static dev.magus.orchestrator.RunHandle.say;

import dev.magus.env.child.SandboxDirs;
import dev.magus.env.overlay.Overlay;
import dev.magus.env.proc.ProcSocket;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.IoFailures;
import dev.magus.events.RunEvent;
import dev.magus.events.SandboxException;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.denials.DenialConfirmer;
import dev.magus.landlock.launch.Child;
import dev.magus.landlock.launch.Confinement;
import dev.magus.landlock.launch.Exit;
import dev.magus.landlock.launch.Spawn;
import dev.magus.landlock.launch.SpawnRequest;
import dev.magus.landlock.launch.Spawner;
import dev.magus.landlock.launch.Stdio;
import dev.magus.orchestrator.Attempt.Ending;
import dev.magus.orchestrator.git.GitConfigSource;
import dev.magus.landlock.compile.NetRules;
import dev.magus.orchestrator.network.HostResolver;
import dev.magus.orchestrator.network.KernelConnects;
import dev.magus.orchestrator.network.NetworkProxy;
import dev.magus.orchestrator.network.ProxyEnv;
import dev.magus.orchestrator.orphans.Strays;
import dev.magus.orchestrator.orphans.StaleTemps;
import dev.magus.orchestrator.orphans.Watchdog;
import dev.magus.orchestrator.pipeline.ConfigStage;
import dev.magus.orchestrator.pipeline.EnvStage;
import dev.magus.orchestrator.pipeline.ExecStage;
import dev.magus.orchestrator.pipeline.PolicyStage;
import dev.magus.orchestrator.pipeline.ProbeStage;
import dev.magus.orchestrator.pipeline.RunConfig;
import dev.magus.orchestrator.pipeline.SpellCaches;
import dev.magus.orchestrator.run.Passthrough;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.Stdin;
import dev.magus.policy.HostFacts;
import dev.magus.policy.PolicyOrOff;
import dev.magus.events.Mode;
import dev.magus.policy.net.NetworkMode;
import dev.magus.workspace.audit.ControlFileAudit;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One execution of a run, on an I/O thread: the stages in order (see {@link Orchestrator}), the spawn,
 * the streams, the control-file audit, and the end of the run once its private temp dir is gone.
 */
final class RunStages {
    /** How long a spawn waits for the watchdog's loop to be up; it started with the run's first stage. */
    static final Duration WATCHDOG_GRACE = Duration.ofSeconds(2);

    private final LandlockProbe probe;
    private final Spawner spawner;
    private final Optional<GitConfigSource> git;
    /** Kills a run's group and removes its private temp dir if magus dies first; one per process. */
    private final Watchdog watchdog;
    private final ChildStreams streams;
    /** How the run's proxy resolves names: the system's, or a test's map to loopback servers. */
    private final HostResolver resolver;

    RunStages(LandlockProbe probe, Spawner spawner, Optional<GitConfigSource> git, Watchdog watchdog, ChildStreams streams,
            HostResolver resolver) {
        this.resolver = resolver;
        this.probe = probe;
        this.spawner = spawner;
        this.git = git;
        this.watchdog = watchdog;
        this.streams = streams;
    }

    void execute(RunHandle run, RunRequest request, Passthrough passthrough, Host host) {
        Attempt attempt = new Attempt();
        Ending ending = Ending.refused(125);
        try {
            ending = stages(run, request, passthrough, attempt, host);
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
            attempt.end(ending, run.journal(), watchdog);
        }
    }

    private Ending stages(RunHandle run, RunRequest request, Passthrough passthrough, Attempt attempt, Host host)
            throws IOException {
        RunConfig config = ConfigStage.resolve(run.id(), request, host.env(), host.home());
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
            SpellCaches.prepare(config, facts);
        }
        PolicyOrOff policy = PolicyStage.build(config, facts);
        attempt.trail = LeaseTrail.attach(run.journal(), policy, run.id(), config.workingDir(), request.argv());
        Overlay overlay = EnvStage.overlay(request);

        String command = config.argv().get(0);
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
        Optional<Path> gitConfig = sandboxed ? Optional.of(writeGitConfig(privateTemp, host)) : Optional.empty();
        SandboxDirs dirs = new SandboxDirs(privateTemp != null ? privateTemp : host.tempBase(),
                facts.magusCacheDir(), host.stateDir().dir());
        EnvStage.ChildEnvPlan env = EnvStage.build(config, policy, host.env(), overlay, dirs, recursive, gitConfig);
        attempt.pending.addAll(env.diagnostics());
        OptionalInt proxyPort = startProxy(run, policy, attempt);
        if (proxyPort.isPresent()) {
            env = env.withVariables(ProxyEnv.apply(env.variables(), proxyPort.getAsInt()));
        }

        Spawn spawn;
        boolean guarded;
        Optional<DenialConfirmer> denials = Optional.empty();
        Optional<ControlFileAudit.Baseline> controlFiles = Optional.empty();
        Optional<dev.magus.workspace.audit.DescendantAudit.Baseline> descendants = Optional.empty();
        // Loaded and warmed before the spawn is decided, so a signal meanwhile still cancels it.
        spawner.prepare();
        // Before the first child: its descendants that leave its group are re-parented here.
        Strays.adopt();
        try (Confinement confinement = ProbeStage.prepare(policy, probe, proxyPort)) {
            confinement.warning().ifPresent(attempt.pending::add);
            // A child spawned before the loop runs would outlive a kill -9 of magus.
            guarded = watchdog.ready(WATCHDOG_GRACE);
            int cancelledBy = run.beginSpawn();
            if (cancelledBy != 0) {
                attempt.flush(run.journal());
                return new Ending(128 + cancelledBy, cancelledBy);
            }
            if (confinement instanceof Confinement.Kernel && (!recursive || attempt.trail.isPresent())) {
                // Only Landlock's refusals are worth inferring from the child's output; a nested
                // magus reports its own children's, so for it they only go on the job's trail,
                // which it cannot write itself.
                NetRules net = policy.policy().map(p -> NetRules.of(p.network(), proxyPort)).orElse(NetRules.OPEN);
                // Only a ruleset that handles TCP refuses connects (below ABI 4 it cannot).
                boolean tcp = ((Confinement.Kernel) confinement).ruleset().handledNet() != 0;
                denials = Optional.of(DenialConfirmer.withConnects(RunChecks.confirmer(policy),
                        new KernelConnects(tcp ? net : NetRules.OPEN)));
            }
            // Last before the spawn: the kernel cannot refuse a write to a control file inside
            // the workspace grant, so what the child does to them is found by comparing.
            controlFiles = policy.policy().map(p -> ControlFileAudit.of(p.controlFiles())
                    .keepingWalksIn(host.stateDir()).before());
            descendants = DescendantStage.before(config, host.stateDir().dir());
            Stdio stdio = request.stdin() instanceof Stdin.None ? Stdio.NULL_INPUT : Stdio.PIPES;
            spawn = spawner.spawn(new SpawnRequest(exe, config.argv(), env.variables(),
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
        Strays.begin(run.id(), child.pid());
        run.journal().emit(new RunEvent.Started(run.id(), run.journal().now(), config.argv(),
                config.mode(), child.pid()));
        attempt.flush(run.journal());
        if (!guarded) {
            // Not a refusal: the watchdog only matters if magus is killed. But never silent.
            say(run, passthrough, "magus: " + watchdog.failure().orElse("no watchdog")
                    + "; if magus is killed, this run's processes and private temp dir may outlive it");
        }
        ChildStreams.Ended ended;
        try {
            ended = streams.stream(run, child, request.stdin(), passthrough, denials, config.workingDir(), config.argv(),
                    recursive && attempt.trail.isPresent() ? attempt.trail.get()::observeNested : run.journal()::diagnostic);
        } finally {
            // Collected by now, or the stream failed: either way no stray is this run's to wait for.
            Strays.end(run.id());
        }
        Exit exit = ended.exit();
        // A stray that outlived the collection can write after the audits: the run fails (MGS2002, unaudited).
        int status = ended.strayed() && exit.status() == 0 ? 1 : exit.status();
        if (controlFiles.isPresent() && RunChecks.audit(run, passthrough, controlFiles.get(), config) && status == 0) {
            // DESIGN.md, exit status: a run the audits fail exits 1 unless the child already failed.
            status = 1;
        }
        if (descendants.isPresent() && DescendantStage.after(run, passthrough, descendants.get()) && status == 0) {
            status = 1;
        }
        return new Ending(status, exit.signal());
    }

    /** The run's network proxy under network mode proxy; its port, or empty when the run has none. */
    private OptionalInt startProxy(RunHandle run, PolicyOrOff policy, Attempt attempt) {
        if (!policy.policy().map(p -> p.network().mode() == NetworkMode.PROXY).orElse(false)) {
            return OptionalInt.empty();
        }
        // Refusals come on the proxy's event loop; a sink may block, so they are emitted from an I/O thread.
        attempt.proxy = NetworkProxy.start(policy.policy().get().network(), resolver,
                d -> IO.schedule(() -> run.journal().diagnostic(d)));
        return OptionalInt.of(attempt.proxy.port());
    }

    private Path writeGitConfig(Path privateTemp, Host host) {
        String text = git.map(g -> g.rendered(host.home(), host.env(), Optional.of(host.stateDir().dir())))
                .orElse("");
        try {
            return Files.writeString(privateTemp.resolve("gitconfig"), text);
        } catch (IOException e) {
            // A full temp dir: the run cannot have its files, so it does not start.
            throw HostDirs.tempFailure(host, "cannot write the run's git config in its private temp dir " + privateTemp,
                    IoFailures.reason(e));
        }
    }
}
