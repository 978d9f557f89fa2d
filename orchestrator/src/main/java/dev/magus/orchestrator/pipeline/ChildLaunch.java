package dev.magus.orchestrator.pipeline;

import dev.magus.orchestrator.run.Host;

import static dev.magus.orchestrator.pipeline.RunHandle.say;

import dev.magus.events.RunEvent;
import dev.magus.landlock.compile.NetRules;
import dev.magus.landlock.denials.DenialConfirmer;
import dev.magus.landlock.launch.Child;
import dev.magus.landlock.launch.Confinement;
import dev.magus.landlock.launch.Exit;
import dev.magus.landlock.launch.Spawn;
import dev.magus.landlock.launch.SpawnRequest;
import dev.magus.landlock.launch.Spawner;
import dev.magus.landlock.launch.Stdio;
import dev.magus.events.SandboxException;
import dev.magus.landlock.launch.Launcher;
import dev.magus.landlock.supervise.Supervisor;
import dev.magus.orchestrator.network.KernelConnects;
import dev.magus.orchestrator.contain.RunCgroups;
import dev.magus.orchestrator.orphans.Strays;
import dev.magus.orchestrator.orphans.Watchdog;
import dev.magus.orchestrator.run.Passthrough;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.Stdin;
import dev.magus.policy.PolicyOrOff;
import dev.magus.workspace.audit.AuditCaches;
import dev.magus.workspace.audit.ControlFileAudit;
import dev.magus.workspace.audit.DescendantAudit;
import dev.magus.workspace.audit.LeaseAudit;
import dev.magus.events.Diagnostic;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The plan's two last stages: the spawn, then the child's streams up to how it ended.
 * The spawn is where cancellation changes its means: before it a signal disposes the run's chain
 * (no child starts), from {@link RunHandle#beginSpawn()} on it waits for the child and reaches
 * its group ({@link RunHandle#attach}).
 */
final class ChildLaunch {
    /** How long a spawn waits for the watchdog's loop to be up; it started with the run's first stage. */
    static final Duration WATCHDOG_GRACE = Duration.ofSeconds(2);

    private final Spawner spawner;
    /** Kills a run's group and removes its private temp dir if magus dies first; the owner's ({@code RunServices}). */
    private final Watchdog watchdog;
    private final ChildStreams streams;
    /** The audits' walks, kept by the orchestrator's owner from run to run. */
    private final AuditCaches audits;

    ChildLaunch(Spawner spawner, Watchdog watchdog, ChildStreams streams, AuditCaches audits) {
        this.spawner = spawner;
        this.watchdog = watchdog;
        this.streams = streams;
        this.audits = audits;
    }

    /** A started child, and what its end is checked against. */
    record Launched(RunPlan plan, Child child, Optional<DenialConfirmer> denials,
            Optional<ControlFileAudit.Baseline> controlFiles, Optional<DescendantAudit.Baseline> descendants,
            Optional<LeaseAudit.Baseline> leaseWrites, Optional<Supervisor> supervisor) {
        Launched {
            Objects.requireNonNull(plan, "plan");
            Objects.requireNonNull(child, "child");
            Objects.requireNonNull(leaseWrites, "leaseWrites");
            Objects.requireNonNull(supervisor, "supervisor");
        }
    }

    /**
     * Loaded and warmed before the spawn is decided, so a signal meanwhile still cancels it; and,
     * before the first child, this process made the subreaper of its descendants that leave its group.
     */
    void prepare() {
        spawner.prepare();
        Strays.adopt();
    }

    /**
     * Spawns the plan's child: the run has started, with its Started event and then the
     * diagnostics held back. Null (the chain's empty) when a signal cancelled the run before the
     * spawn was decided. A child that did not start is a {@link Refusal}.
     */
    Launched spawn(RunHandle run, RunRequest request, Passthrough passthrough, Host host, RunPlan plan, Attempt attempt) {
        RunConfig config = plan.config();
        PolicyOrOff policy = plan.policy();
        Optional<DenialConfirmer> denials = Optional.empty();
        Optional<DenialConfirmer> confirmer = Optional.empty();
        Spawn spawn;
        boolean guarded;
        try (Confinement confinement = plan.confinement()) {
            // A child spawned before the loop runs would outlive a kill -9 of magus.
            guarded = watchdog.ready(WATCHDOG_GRACE);
            if (run.beginSpawn() != 0) {
                return null;
            }
            if (confinement instanceof Confinement.Kernel kernel) {
                NetRules net = policy.policy().map(p -> NetRules.of(p.network(), plan.proxyPort())).orElse(NetRules.OPEN);
                // Only a ruleset that handles TCP refuses connects (below ABI 4 it cannot).
                boolean tcp = kernel.ruleset().handledNet() != 0;
                confirmer = Optional.of(DenialConfirmer.withConnects(RunChecks.confirmer(policy),
                        new KernelConnects(tcp ? net : NetRules.OPEN, kernel.sockets())));
                // Only Landlock's refusals are worth inferring from the child's output; a nested
                // magus reports its own children's, so for it they only go on the job's trail,
                // which it cannot write itself.
                if (!plan.recursive() || plan.trail().isPresent()) {
                    denials = confirmer;
                }
            }
            // Last before the spawn: the kernel cannot refuse a write to a control file inside
            // the workspace grant, so what the child does to them is found by comparing.
            Optional<ControlFileAudit.Baseline> controlFiles = policy.policy().map(p -> ControlFileAudit.of(p.controlFiles(), audits)
                    .keepingWalksIn(host.stateDir())
                    .quarantiningIn(host.stateDir(), dev.magus.workspace.quarantine.Retention.of(host.env())).before());
            Optional<DescendantAudit.Baseline> descendants = DescendantStage.before(config, host.stateDir().dir(), audits);
            // Nor within a directory granted whole for a lease's glob (docs/ for docs/*.md).
            Optional<LeaseAudit.Baseline> leaseWrites = policy.policy().map(p -> LeaseAudit.of(p.leases()))
                    .filter(a -> !a.dirs().isEmpty())
                    .map(a -> a.quarantiningIn(host.stateDir(), dev.magus.workspace.quarantine.Retention.of(host.env()))
                            .before());
            // A descriptor is the child's own descriptor 0 (a terminal stays one); bytes go through a pipe.
            Stdio stdio = request.stdin() instanceof Stdin.None ? Stdio.NULL_INPUT
                    : request.stdin() instanceof Stdin.Inherit ? Stdio.inputFrom(0)
                    : request.stdin() instanceof Stdin.Descriptor d ? new Stdio.InputFrom(d.fd()) : Stdio.PIPES;
            Optional<Supervisor> supervisor = Supervision.start(request.supervised() || config.config().supervise(), run,
                    passthrough, confinement, confirmer, config.workingDir(), request.approval());
            SpawnRequest child = new SpawnRequest(plan.executable(), config.argv(), plan.env().variables(),
                    config.workingDir(), stdio);
            try {
                // Born in a cgroup of the run's own where this process's runs get one.
                spawn = RunCgroups.spawn(run.id(), spawner, child, confinement, supervisor.orElse(null), watchdog);
            } catch (RuntimeException | Error e) {
                supervisor.ifPresent(Supervisor::close);
                if (supervisor.isEmpty() || !Launcher.listenerTaken(e)) {
                    throw e;
                }
                // Inside a supervised run: that run's supervisor sees this child's calls.
                Supervision.nestedUnsupervised(confinement.mode(), (SandboxException) e, run, passthrough);
                supervisor = Optional.empty();
                spawn = spawner.spawn(child, confinement);
            }
            if (spawn instanceof Spawn.NotStarted) {
                supervisor.ifPresent(Supervisor::close);
            }
            if (spawn instanceof Spawn.NotStarted ns) {
                Optional<DenialConfirmer> policyCheck = denials;
                throw ns.diagnostic().map(d -> policyCheck.map(c -> refusedOne(d, c, config.workingDir())).orElse(d))
                        .<Refusal>map(d -> new Refusal.Diagnosed(d, ns.status()))
                        .orElseGet(() -> new Refusal.Said("magus: " + config.argv().get(0) + ": " + ns.message(), ns.status()));
            }
            Child started = ((Spawn.Started) spawn).child();
            started(run, passthrough, config, started, guarded, attempt);
            return new Launched(plan, started, denials, controlFiles, descendants, leaseWrites, supervisor);
        }
    }

    /**
     * A refused exec of a script names the script or its interpreter: the one the policy refuses,
     * with the policy's own words (what to declare), when exactly one of them is refused.
     */
    private static Diagnostic refusedOne(Diagnostic said, DenialConfirmer policy, Path cwd) {
        if (said.operation() != dev.magus.events.Operation.EXEC) {
            return said;
        }
        Path exe = Path.of(said.subject());
        Optional<Path> interpreter = dev.magus.landlock.launch.Shebang.interpreter(exe);
        Optional<Diagnostic> script = policy.confirm(dev.magus.events.Operation.EXEC, exe, cwd);
        Optional<Diagnostic> interp = interpreter.flatMap(i -> policy.confirm(dev.magus.events.Operation.EXEC, i, cwd));
        Optional<Diagnostic> one = script.isPresent() == interp.isPresent() ? Optional.empty() : script.or(() -> interp);
        return one.map(d -> new Diagnostic(d.code(), d.message(), d.subject(), d.operation(), said.layer(), said.source(),
                d.details())).orElse(said);
    }

    private void started(RunHandle run, Passthrough passthrough, RunConfig config, Child child, boolean guarded,
            Attempt attempt) {
        // First, before anything that takes time: a signal queued since beginSpawn reaches the
        // group now, and from here a kill -9 of magus takes the group with it.
        run.attach(child);
        watchdog.guardGroup(child.pid());
        Strays.begin(run.id(), child.pid());
        run.journal().emit(new RunEvent.Started(run.id(), run.journal().now(), config.argv(), config.mode(), child.pid()));
        attempt.flush();
        if (!guarded) {
            // Not a refusal: the watchdog only matters if magus is killed. But never silent.
            say(run, passthrough, "magus: " + watchdog.failure().orElse("no watchdog")
                    + "; if magus is killed, this run's processes and private temp dir may outlive it");
        }
    }

    /** How the child's life ended, before the after-run audits ({@link RunChecks#after}). */
    record Streamed(Launched launched, int status, int signal) {
    }

    /**
     * The child's life: its streams pumped, its stdin fed, its denials reported. The run fails
     * (1) when a stray outlived the collection, unless the child already failed.
     */
    Streamed stream(RunHandle run, RunRequest request, Passthrough passthrough, Launched launched) {
        RunPlan plan = launched.plan();
        RunConfig config = plan.config();
        Optional<LeaseTrail> trail = plan.trail();
        ChildStreams.Ended ended;
        try {
            ended = streams.stream(run, launched.child(), request.stdin(), passthrough, launched.denials(),
                    launched.supervisor(), config.workingDir(), config.argv(),
                    plan.recursive() && trail.isPresent() ? trail.get()::observeNested : run.journal()::diagnostic);
        } finally {
            // Collected by now, or the stream failed: either way no stray is this run's to wait for,
            // and no cgroup is left behind (ended already: nothing to do).
            Strays.end(run.id());
            RunCgroups.end(run.id(), ChildStreams.STRAY_GRACE, watchdog);
        }
        Exit exit = ended.exit();
        // A stray that outlived the collection can write after the audits: the run fails (MGS2002, unaudited).
        int status = ended.strayed() && exit.status() == 0 ? 1 : exit.status();
        status = Supervision.end(launched.supervisor(), run, passthrough, status);
        return new Streamed(launched, status, exit.signal());
    }
}
