package dev.magus.orchestrator.pipeline;

import dev.magus.policy.HostFacts;
import dev.magus.policy.Policy;
import dev.magus.policy.PolicyBuilder;
import dev.magus.policy.PolicyOrOff;
import dev.magus.policy.decl.MergedDecl;
import dev.magus.policy.decl.SandboxDecl;
import dev.magus.policy.lease.Narrowing;
import dev.magus.policy.lease.Tree;
import dev.magus.policy.mode.Mode;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.lease.LeaseLookup;
import dev.magus.workspace.project.Target;
import java.util.List;

/** Stage 2: the run's policy, built once from the core footprint and the declared layers, then narrowed by a lease. */
public final class PolicyStage {
    private PolicyStage() {
    }

    /**
     * Mode off builds nothing (and so does not evaluate the declaration). Under any other
     * mode the policy is built or the run stops. A lease on the workspace (or a checkout
     * above it) then narrows the write grant ({@link dev.magus.policy.lease.LeaseNarrowing});
     * a lease that cannot be read or honored stops the run.
     *
     * @throws dev.magus.events.SandboxException MGS2004 when the workspace declaration or the lease cannot be honored
     */
    public static PolicyOrOff build(RunConfig config, HostFacts host) {
        if (config.mode() == Mode.OFF) {
            return PolicyOrOff.off();
        }
        MergedDecl declared = declared(config);
        PolicyOrOff built = new PolicyBuilder(host).build(config.mode(), config.workspaceRoot(), declared);
        return built.policy().<PolicyOrOff>map(p -> narrow(p, host)).orElse(built);
    }

    /**
     * One merge for every layer, union only: the workspace's, then the spells this process gets
     * (each loaded now, so a spell's declaration that cannot be honored stops the run with its
     * MGS2004), then the target's.
     */
    public static MergedDecl declared(RunConfig config) {
        SandboxDecl workspace = config.config().sandbox();
        List<SandboxDecl> spells = config.spellNames().stream().map(n -> config.spells().spell(n).sandbox()).toList();
        return MergedDecl.merge(workspace, spells, config.target().map(Target::sandbox));
    }

    /**
     * The kernel layer's half of the narrowing: the policy's rules become the narrowed ones, so
     * Landlock and the binding checks both hold the run to them. The binding layer's exact glob
     * check, naming the job in MGS2002 and the trail's sandbox_denial rows are not wired yet.
     */
    static Policy narrow(Policy p, HostFacts host) {
        LeaseLookup lookup = new LeaseLookup(StateDir.of(host.env(), host.home()), host.magusCacheDir());
        Narrowing n = lookup.narrowing(p.ruleset(), p.workspaceRoot(), host.privateTemp(), Tree.real());
        if (n instanceof Narrowing.Refused refused) {
            throw refused.exception();
        }
        if (n instanceof Narrowing.Narrowed narrowed) {
            return new Policy(p.mode(), p.workspaceRoot(), p.home(), narrowed.ruleset(), p.env(), p.controlFiles(), p.notes());
        }
        return p;
    }
}
