package dev.magus.orchestrator.pipeline;

import dev.magus.policy.HostFacts;
import dev.magus.policy.PolicyBuilder;
import dev.magus.policy.PolicyOrOff;
import dev.magus.policy.decl.MergedDecl;
import dev.magus.policy.mode.Mode;
import java.util.List;
import java.util.Optional;

/** Stage 2: the run's policy, built once from the core footprint and the declared layers. */
public final class PolicyStage {
    private PolicyStage() {
    }

    /**
     * Mode off builds nothing (and so does not evaluate the declaration). Under any other
     * mode the policy is built or the run stops.
     *
     * @throws dev.magus.events.SandboxException MGS2004 when the workspace declaration cannot be honored
     */
    public static PolicyOrOff build(RunConfig config, HostFacts host) {
        if (config.mode() == Mode.OFF) {
            return PolicyOrOff.off();
        }
        MergedDecl declared = MergedDecl.merge(config.config().sandbox(), List.of(), Optional.empty());
        return new PolicyBuilder(host).build(config.mode(), config.workspaceRoot(), declared);
    }
}
