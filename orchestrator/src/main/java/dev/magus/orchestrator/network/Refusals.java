package dev.magus.orchestrator.network;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.policy.Policy;
import dev.magus.policy.net.AddressClass;
import dev.magus.policy.net.NetworkAdvice;
import java.net.InetAddress;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** The MGS2013 the proxy raises for a host it refuses. Pure. */
final class Refusals {
    static final String SOURCE = "proxy";

    private Refusals() {
    }

    /** A host no layer declares. */
    static Diagnostic notDeclared(RequestHead head) {
        return diagnostic(head, "is not a declared host", Optional.empty(), Map.of("reason", "not declared"));
    }

    /** A declared name (by a pattern, or not by this exact name) that resolved inside. */
    static Diagnostic internal(RequestHead head, InetAddress address, AddressClass c) {
        return diagnostic(head, "resolves to " + address.getHostAddress() + ", " + c.description()
                        + "; only a host declared by its exact name may reach inside",
                Optional.of(c), Map.of("reason", "resolves inside", "address", address.getHostAddress(),
                        "address_class", c.name().toLowerCase(java.util.Locale.ROOT)));
    }

    private static Diagnostic diagnostic(RequestHead head, String why, Optional<AddressClass> resolved, Map<String, String> more) {
        Map<String, String> details = new TreeMap<>(more);
        details.put("host", head.host());
        details.put("port", Integer.toString(head.port()));
        details.put("method", head.method());
        NetworkAdvice advice = NetworkAdvice.classify(head.bareHost(), resolved);
        details.put("class", advice.label());
        String said = "";
        if (advice instanceof NetworkAdvice.Hint hint) {
            details.put(Policy.ALLOW_YAML, hint.yaml());
        } else if (advice instanceof NetworkAdvice.AttackLike attack) {
            details.put("attack", attack.why());
            said = "; this looks like an attack (" + attack.why() + "), so nothing is suggested";
        }
        return new Diagnostic(Code.MGS2013, "connect denied: " + head.authority() + " " + why + said,
                head.authority(), Operation.CONNECT, Layer.PROXY, SOURCE, details);
    }
}
