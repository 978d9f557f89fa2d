package dev.magus.orchestrator.pipeline;

import dev.magus.orchestrator.run.Host;
import dev.magus.orchestrator.run.HostDirs;

import dev.magus.env.child.SandboxDirs;
import dev.magus.env.overlay.Overlay;
import dev.magus.env.proc.ProcSocket;
import dev.magus.events.Diagnostic;
import dev.magus.events.IoFailures;
import dev.magus.events.Mode;
import dev.magus.events.SandboxException;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.launch.Confinement;
import dev.magus.orchestrator.pipeline.RunPlan.Aimed;
import dev.magus.orchestrator.pipeline.RunPlan.Equipped;
import dev.magus.orchestrator.pipeline.RunPlan.Governed;
import dev.magus.orchestrator.pipeline.RunPlan.Premises;
import dev.magus.orchestrator.git.GitConfigSource;
import dev.magus.orchestrator.network.HostResolver;
import dev.magus.orchestrator.network.NetworkProxy;
import dev.magus.orchestrator.network.ProxyEnv;
import dev.magus.orchestrator.pipeline.EnvStage.ChildEnvPlan;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.policy.HostFacts;
import dev.magus.policy.PolicyOrOff;
import dev.magus.policy.net.NetworkMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import reactor.core.publisher.Mono;

/**
 * The stages that build a {@link RunPlan}, in the order {@link RunStages} chains them: each a
 * function of immutable values that returns the next value or refuses the run by throwing a
 * {@link Refusal} (or a {@link SandboxException}, which the chain turns into one). None of
 * them knows the run's events or its end: the chain holds back their diagnostics and releases
 * what they acquire ({@link Attempt}). Functions that acquire something (the private temp dir,
 * the proxy, the ruleset) return exactly it, so the chain owns it before the next stage.
 */
final class PlanStages {
    private PlanStages() {
    }

    /** A stage as the chain sees it: its value, or its refusal as an error signal ({@link #signal}). */
    static <T> Mono<T> mono(Callable<T> stage) {
        return Mono.fromCallable(stage).onErrorMap(PlanStages::signal);
    }

    /** How a stage's failure travels the chain: a {@link SandboxException} as its {@link Refusal}, anything else as it is. */
    static Throwable signal(Throwable e) {
        return e instanceof SandboxException s ? Refusal.of(s) : e;
    }

    /** Stage 1: {@code magus.yaml}, the floor and the request, as one {@link RunConfig}. */
    static RunConfig config(String runId, RunRequest request, Host host) {
        return ConfigStage.resolve(runId, request, host.env(), host.home());
    }

    /** The run's private temp dir (0700): none in mode off. Acquires it: the caller owns it at once. */
    static Optional<Path> privateTemp(RunConfig config, Host host) {
        return config.mode() != Mode.OFF ? Optional.of(HostDirs.createPrivateTemp(host)) : Optional.empty();
    }

    /** The host facts under the run's temp dir; a sandboxed run's cache dirs exist afterwards (MGS2004 if they cannot). */
    static Premises premises(RunConfig config, Optional<Path> privateTemp, Host host) {
        HostFacts facts = host.facts(privateTemp.orElse(host.tempBase()));
        if (privateTemp.isPresent()) {
            HostDirs.createCacheDir(facts.magusCacheDir(), host.env());
            SpellCaches.prepare(config, facts);
        }
        return new Premises(config, privateTemp, facts);
    }

    /** Stage 2: the policy of the config on this host (or none, mode off). */
    static PolicyOrOff policy(Premises premises) {
        return PolicyStage.build(premises.config(), premises.facts());
    }

    /**
     * Stage 3: the exec check. The command is looked up the way the child's PATH would find it:
     * not found is a refusal said as a shell would (127; 126 not runnable), a file the exec
     * rules deny is MGS2007 (126).
     */
    static Aimed aim(Governed governed, RunRequest request, Host host) {
        Overlay overlay = EnvStage.overlay(request);
        RunConfig config = governed.premises().config();
        ExecStage.Target target = ExecStage.resolve(config.argv().get(0), EnvStage.lookupPath(overlay, host.env()),
                config.workingDir(), governed.policy());
        if (target instanceof ExecStage.Target.Unrunnable u) {
            throw new Refusal.Said("magus: " + u.message(), u.status());
        }
        if (target instanceof ExecStage.Target.Denied denied) {
            throw new Refusal.Diagnosed(denied.diagnostic(), 126);
        }
        Path exe = ((ExecStage.Target.Runnable) target).executable();
        boolean recursive = host.launcher().map(l -> ProcSocket.isRecursiveMagus(exe, l)).orElse(false);
        return new Aimed(governed, overlay, exe, recursive);
    }

    /**
     * Stage 4: the child's environment, rebuilt from the allowlist with the run's overlay on top;
     * a sandboxed run gets its safe git config in its private temp dir (MGS2004 when it cannot be
     * written: the run does not start without its files). Its diagnostics are the caller's to hold back.
     */
    static ChildEnvPlan childEnv(Aimed aimed, Host host, Optional<GitConfigSource> git) {
        Premises premises = aimed.governed().premises();
        Optional<Path> gitConfig = premises.privateTemp().map(temp -> writeGitConfig(temp, host, git));
        SandboxDirs dirs = new SandboxDirs(premises.tempDir(host), premises.facts().magusCacheDir(),
                host.stateDir().dir());
        ChildEnvPlan env = EnvStage.build(premises.config(), aimed.governed().policy(), host.env(), aimed.overlay(), dirs,
                aimed.recursive(), gitConfig);
        return EnvStage.quieted(env, host.stateDir().dir().resolve("seen"), premises.config().workspaceRoot(),
                aimed.executable());
    }

    /**
     * Stage 5: the run's network proxy under network mode proxy, empty otherwise. Acquires it:
     * the caller owns it at once. Its refusals go to {@code refusals}, from its event loop.
     */
    static Optional<NetworkProxy> proxy(PolicyOrOff policy, HostResolver resolver, Consumer<Diagnostic> refusals) {
        return policy.policy().filter(p -> p.network().mode() == NetworkMode.PROXY)
                .map(p -> NetworkProxy.start(p.network(), resolver, refusals));
    }

    /** The environment and the proxy together: the child is pointed at the proxy when there is one. */
    static Equipped equip(Aimed aimed, ChildEnvPlan env, OptionalInt proxyPort) {
        return new Equipped(aimed, proxyPort.isPresent()
                ? env.withVariables(ProxyEnv.apply(env.variables(), proxyPort.getAsInt())) : env, proxyPort);
    }

    /**
     * Stage 6: the kernel layer for the plan: the host's ABI against the mode compiles the rules
     * (confined), goes on with the binding layer only (MGS2005, best-effort), or refuses (MGS2012,
     * required). Acquires the ruleset: the caller owns it at once.
     */
    static Confinement confinement(Equipped equipped, LandlockProbe probe) {
        return ProbeStage.prepare(equipped.aimed().governed().policy(), probe, equipped.proxyPort());
    }

    private static Path writeGitConfig(Path privateTemp, Host host, Optional<GitConfigSource> git) {
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
