package dev.magus.orchestrator.pipeline;

import dev.magus.env.overlay.Overlay;
import dev.magus.landlock.launch.Confinement;
import dev.magus.orchestrator.pipeline.EnvStage.ChildEnvPlan;
import dev.magus.orchestrator.run.Host;
import dev.magus.policy.HostFacts;
import dev.magus.policy.PolicyOrOff;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Everything a run's spawn needs, decided before it: the one value {@link RunStages}' chain hands
 * from stage to stage, each filling its part (null until that stage has run; the spawn gets a
 * plan whose stages all ran, {@link #confined}). What it names that must be released is released
 * by the run's {@link Attempt}.
 *
 * @param config      the run's config (stage config)
 * @param privateTemp the run's private temp dir, none in mode off (stage host)
 * @param facts       the host facts under it (stage host)
 * @param policy      the policy of the config on this host (stage policy)
 * @param trail       the leased job's trail, once run_started is written (stage policy)
 * @param overlay     the request's env-set and env-unset (stage aim)
 * @param executable  the file the command resolved to, allowed by the exec rules (stage aim)
 * @param recursive   whether that file is a magus itself (stage aim)
 * @param env         the child's environment (stage env, pointed at the proxy by stage proxy)
 * @param proxyPort   under network mode proxy, the port of the run's proxy (stage proxy)
 * @param confinement the kernel layer: the ruleset and seccomp filter, or none (stage probe)
 */
record RunPlan(RunConfig config, Optional<Path> privateTemp, HostFacts facts, PolicyOrOff policy,
        Optional<LeaseTrail> trail, Overlay overlay, Path executable, boolean recursive, ChildEnvPlan env,
        OptionalInt proxyPort, Confinement confinement) {
    RunPlan {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(privateTemp, "privateTemp");
        Objects.requireNonNull(facts, "facts");
    }

    /** The plan once the host stage has run: nothing after it decided yet. */
    static RunPlan of(RunConfig config, Optional<Path> privateTemp, HostFacts facts) {
        return new RunPlan(config, privateTemp, facts, null, Optional.empty(), null, null, false, null,
                OptionalInt.empty(), null);
    }

    /** The private temp dir, or the host's temp base for a run without one (mode off). */
    Path tempDir(Host host) {
        return privateTemp.orElse(host.tempBase());
    }

    RunPlan governed(PolicyOrOff p, Optional<LeaseTrail> t) {
        return new RunPlan(config, privateTemp, facts, Objects.requireNonNull(p, "policy"), Objects.requireNonNull(t, "trail"),
                overlay, executable, recursive, env, proxyPort, confinement);
    }

    RunPlan aimed(Overlay o, Path exe, boolean isMagus) {
        return new RunPlan(config, privateTemp, facts, policy, trail, Objects.requireNonNull(o, "overlay"),
                Objects.requireNonNull(exe, "executable"), isMagus, env, proxyPort, confinement);
    }

    RunPlan equipped(ChildEnvPlan e, OptionalInt port) {
        return new RunPlan(config, privateTemp, facts, policy, trail, overlay, executable, recursive,
                Objects.requireNonNull(e, "env"), Objects.requireNonNull(port, "proxyPort"), confinement);
    }

    RunPlan confined(Confinement c) {
        return new RunPlan(config, privateTemp, facts, policy, trail, overlay, executable, recursive, env, proxyPort,
                Objects.requireNonNull(c, "confinement"));
    }
}
