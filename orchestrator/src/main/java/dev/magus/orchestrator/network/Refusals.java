package dev.magus.orchestrator.network;

import dev.magus.events.DetailKey;
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
        return diagnostic(head, "is not a declared host", Optional.empty(), Map.of(DetailKey.REASON.key(), "not declared"));
    }

    /** A declared name (by a pattern, or not by this exact name) that resolved inside. */
    static Diagnostic internal(RequestHead head, InetAddress address, AddressClass c) {
        return diagnostic(head, "resolves to " + address.getHostAddress() + ", " + c.description()
                        + "; only a host declared by its exact name may reach inside",
                Optional.of(c), Map.of(DetailKey.REASON.key(), "resolves inside", DetailKey.ADDRESS.key(), address.getHostAddress(),
                        DetailKey.ADDRESS_CLASS.key(), c.name().toLowerCase(java.util.Locale.ROOT)));
    }

    private static Diagnostic diagnostic(RequestHead head, String why, Optional<AddressClass> resolved, Map<String, String> more) {
        Map<String, String> details = new TreeMap<>(more);
        details.put(DetailKey.HOST.key(), head.host());
        details.put(DetailKey.PORT.key(), Integer.toString(head.port()));
        details.put(DetailKey.METHOD.key(), head.method());
        NetworkAdvice advice = NetworkAdvice.classify(head.bareHost(), resolved);
        details.put(DetailKey.CLASS.key(), advice.label());
        String said = "";
        if (advice instanceof NetworkAdvice.Hint hint) {
            details.put(DetailKey.ALLOW_YAML.key(), hint.yaml());
        } else if (advice instanceof NetworkAdvice.AttackLike attack) {
            details.put(DetailKey.ATTACK.key(), attack.why());
            said = "; this looks like an attack (" + attack.why() + "), so nothing is suggested";
        }
        return new Diagnostic(Code.MGS2013, "connect denied: " + head.authority() + " " + why + said,
                head.authority(), Operation.CONNECT, Layer.PROXY, SOURCE, details);
    }
}
