package dev.magus.orchestrator.pipeline;

import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.compile.NetRules;
import dev.magus.landlock.launch.Confinement;
import dev.magus.landlock.seccomp.SocketRules;
import dev.magus.policy.PolicyOrOff;
import java.util.OptionalInt;

/**
 * The kernel layer for this run: the host's Landlock ABI against the mode decides whether the
 * policy's rules are compiled into a ruleset (confined), the run goes on with the binding layer
 * only (best-effort, MGS2005), or is refused (required below ABI 3, MGS2012). A confined
 * child also gets the seccomp layer of the policy's network mode and Unix socket declaration.
 */
public final class ProbeStage {
    private ProbeStage() {
    }

    /**
     * With the policy's network rules: under network mode {@code proxy} the child may connect
     * to {@code proxyPort} (the run's proxy) and the declared ports.
     *
     * @throws dev.magus.events.SandboxException MGS2012 when required mode meets too old a kernel
     * @throws IllegalArgumentException under network mode proxy without a proxy port (a caller bug)
     */
    public static Confinement prepare(PolicyOrOff policy, LandlockProbe probe, OptionalInt proxyPort) {
        return policy.policy()
                .map(p -> Confinement.prepare(p.mode(), p.rules(), NetRules.of(p.network(), proxyPort),
                        SocketRules.of(p.network().mode(), p.network().unix().allowsSocketCall()), probe))
                .orElseGet(Confinement::off);
    }
}
