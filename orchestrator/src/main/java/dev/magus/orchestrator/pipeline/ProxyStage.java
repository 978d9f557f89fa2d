package dev.magus.orchestrator.pipeline;

import dev.magus.events.Diagnostic;
import dev.magus.orchestrator.network.HostResolver;
import dev.magus.orchestrator.network.NetworkProxy;
import dev.magus.orchestrator.network.ProxyEnv;
import dev.magus.orchestrator.network.ProxyLoops;
import dev.magus.policy.PolicyOrOff;
import dev.magus.policy.net.NetworkMode;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Consumer;

/** The run's network proxy under network mode proxy, and the child pointed at it. */
final class ProxyStage {
    private ProxyStage() {
    }

    /**
     * The run's proxy under network mode proxy, on the owner's {@code loops} (made by the first
     * such run), empty otherwise. Acquires it: the caller owns it at once. Its refusals go to
     * {@code refusals}, from its event loop.
     */
    static Optional<NetworkProxy> start(PolicyOrOff policy, ProxyLoops loops, HostResolver resolver,
            Consumer<Diagnostic> refusals) {
        return policy.policy().filter(p -> p.network().mode() == NetworkMode.PROXY)
                .map(p -> NetworkProxy.start(loops.group(), p.network(), resolver, refusals));
    }

    /** The stage: the plan with its environment, pointed at the proxy when there is one. */
    static RunPlan equip(RunPlan plan, EnvStage.ChildEnvPlan env, OptionalInt proxyPort) {
        return plan.equipped(proxyPort.isPresent()
                ? env.withVariables(ProxyEnv.apply(env.variables(), proxyPort.getAsInt())) : env, proxyPort);
    }
}
