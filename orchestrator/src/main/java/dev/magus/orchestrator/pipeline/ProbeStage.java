package dev.magus.orchestrator.pipeline;

import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.launch.Confinement;
import dev.magus.policy.PolicyOrOff;

/**
 * The kernel layer for this run: the host's Landlock ABI against the mode decides whether the
 * policy's rules are compiled into a ruleset (confined), the run goes on with the binding layer
 * only (best-effort, MGS2005), or is refused (required below ABI 3, MGS2012).
 */
public final class ProbeStage {
    private ProbeStage() {
    }

    /** @throws dev.magus.events.SandboxException MGS2012 when required mode meets too old a kernel */
    public static Confinement prepare(PolicyOrOff policy, LandlockProbe probe) {
        return policy.policy()
                .map(p -> Confinement.prepare(p.mode(), p.rules(), probe))
                .orElseGet(Confinement::off);
    }
}
