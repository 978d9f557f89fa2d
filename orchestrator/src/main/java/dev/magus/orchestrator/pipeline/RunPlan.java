package dev.magus.orchestrator.pipeline;

import dev.magus.orchestrator.run.Host;

import dev.magus.env.overlay.Overlay;
import dev.magus.landlock.launch.Confinement;
import dev.magus.orchestrator.pipeline.EnvStage.ChildEnvPlan;
import dev.magus.policy.HostFacts;
import dev.magus.policy.PolicyOrOff;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Everything a run's spawn needs, decided before it: the value the chain of {@link PlanStages}
 * builds, one stage's record wrapping the one before it (config and host facts → policy and
 * lease trail → exec target → child environment and proxy → confinement). Immutable; what it
 * names that must be released (the private temp dir, the trail, the proxy, the ruleset) is
 * released by the run's {@link Attempt}, however the run ends.
 */
record RunPlan(Equipped equipped, Confinement confinement) {
    RunPlan {
        Objects.requireNonNull(equipped, "equipped");
        Objects.requireNonNull(confinement, "confinement");
    }

    /** The config, the run's private temp dir (none in mode off) and the host facts under it. */
    record Premises(RunConfig config, Optional<Path> privateTemp, HostFacts facts) {
        Premises {
            Objects.requireNonNull(config, "config");
            Objects.requireNonNull(privateTemp, "privateTemp");
            Objects.requireNonNull(facts, "facts");
        }

        boolean sandboxed() {
            return privateTemp.isPresent();
        }

        /** The private temp dir, or the host's temp base for a run without one (mode off). */
        Path tempDir(Host host) {
            return privateTemp.orElse(host.tempBase());
        }
    }

    /** The policy, and the leased job's trail once run_started is written. */
    record Governed(Premises premises, PolicyOrOff policy, Optional<LeaseTrail> trail) {
        Governed {
            Objects.requireNonNull(premises, "premises");
            Objects.requireNonNull(policy, "policy");
            Objects.requireNonNull(trail, "trail");
        }
    }

    /** The file the command resolved to, allowed by the exec rules; whether it is a magus itself. */
    record Aimed(Governed governed, Overlay overlay, Path executable, boolean recursive) {
        Aimed {
            Objects.requireNonNull(governed, "governed");
            Objects.requireNonNull(overlay, "overlay");
            Objects.requireNonNull(executable, "executable");
        }
    }

    /** The child's environment and, under network mode proxy, the port of the run's proxy. */
    record Equipped(Aimed aimed, ChildEnvPlan env, OptionalInt proxyPort) {
        Equipped {
            Objects.requireNonNull(aimed, "aimed");
            Objects.requireNonNull(env, "env");
            Objects.requireNonNull(proxyPort, "proxyPort");
        }
    }

    RunConfig config() {
        return premises().config();
    }

    Premises premises() {
        return governed().premises();
    }

    Governed governed() {
        return aimed().governed();
    }

    Aimed aimed() {
        return equipped.aimed();
    }

    PolicyOrOff policy() {
        return governed().policy();
    }

    Optional<LeaseTrail> trail() {
        return governed().trail();
    }

    Path executable() {
        return aimed().executable();
    }

    boolean recursive() {
        return aimed().recursive();
    }

    ChildEnvPlan env() {
        return equipped.env();
    }

    OptionalInt proxyPort() {
        return equipped.proxyPort();
    }
}
