package dev.magus.orchestrator.network;

import dev.magus.events.DetailKey;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.landlock.compile.NetRules;
import dev.magus.landlock.denials.DenialConfirmer;
import dev.magus.landlock.seccomp.SocketRules;
import dev.magus.policy.Policy;
import dev.magus.policy.net.NetworkAdvice;
import dev.magus.policy.net.NetworkMode;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;

/**
 * The kernel-layer MGS2013 for a connect a confined child reported failing: confirmed against
 * the run's TCP rules (a connect to a port outside them is what Landlock refuses with EACCES),
 * never taken from the words alone; and MGS2015 for a socket it could not open, confirmed
 * against the seccomp layer's socket rules. Pure.
 */
public final class KernelConnects implements DenialConfirmer.ConnectConfirmer {
    private static final Set<String> LOOPBACK = Set.of("127.0.0.1", "localhost", "::1", "[::1]");

    private final NetRules rules;
    private final SocketRules sockets;

    /**
     * @param rules   the TCP rules the kernel holds the run to (only when its ruleset handles TCP)
     * @param sockets the seccomp layer's socket rules the run's children are under
     */
    public KernelConnects(NetRules rules, SocketRules sockets) {
        this.rules = rules;
        this.sockets = sockets;
    }

    /** Sockets whose owner holds the user's authority: reaching one is never suggested. */
    private static final java.util.regex.Pattern AUTHORITY = java.util.regex.Pattern.compile(
            "docker\\.sock|containerd|podman|ssh|agent|gnupg|S\\.gpg|/bus$|dbus|keyring|systemd/private|libvirt");

    @Override
    public Optional<Diagnostic> confirmSocket(String what) {
        boolean path = what.startsWith("/");
        Map<String, String> details = new TreeMap<>();
        String subject;
        String reason;
        if (path || what.equals("unix")) {
            if (sockets.unix()) {
                return Optional.empty();
            }
            subject = path ? what : "a Unix socket";
            reason = "Unix sockets not declared (sandbox.network.unix)";
            if (path && AUTHORITY.matcher(what).find()) {
                details.put(DetailKey.CLASS.key(), "attack");
                details.put(DetailKey.ATTACK.key(), "a socket of a service that acts with your authority");
            } else {
                details.put(DetailKey.CLASS.key(), "hint");
                details.put(DetailKey.ALLOW_YAML.key(), "sandbox:\n  network:\n    unix: " + (path ? "[" + what + "]" : "allow") + "\n");
            }
        } else if (what.equals("udp") || what.equals("raw") || what.equals("packet")) {
            if (!sockets.tcpOnly()) {
                return Optional.empty();
            }
            subject = what.equals("udp") ? "a UDP (datagram) socket" : what.equals("raw") ? "a raw socket" : "a packet socket";
            reason = "network mode " + rules.mode().spelling() + " opens TCP sockets only";
        } else {
            if (!sockets.refusesAnything()) {
                return Optional.empty();
            }
            subject = "a socket";
            reason = (sockets.unix() ? "" : "Unix sockets not declared")
                    + (sockets.tcpOnly() ? (sockets.unix() ? "" : "; ") + "network mode " + rules.mode().spelling()
                            + " opens TCP sockets only" : "");
        }
        details.put(DetailKey.REASON.key(), reason);
        return Optional.of(new Diagnostic(Code.MGS2015, "socket denied: " + subject + " (" + reason + ")", subject,
                Operation.SOCKET, Layer.KERNEL, "seccomp", details));
    }

    @Override
    public Optional<Diagnostic> confirmBind(String host, OptionalInt port) {
        if (!rules.refusesBind(port)) {
            return Optional.empty();
        }
        String subject = subject(host, port, "a TCP bind");
        String allowed = rules.mode() == NetworkMode.NONE ? "network mode none allows no TCP at all"
                : rules.bind().isEmpty() ? "no port is declared to listen on" : "only the declared ports " + rules.bind() + " may be bound";
        Map<String, String> details = details(host, port, "port outside the bind rules");
        port.ifPresent(p -> {
            details.put(DetailKey.CLASS.key(), "hint");
            details.put(DetailKey.ALLOW_YAML.key(), NetworkAdvice.portYaml("bind", p));
        });
        return Optional.of(new Diagnostic(Code.MGS2013, "bind denied: listening on " + subject
                + " is outside the run's network policy (" + allowed + ")", subject, Operation.BIND, Layer.KERNEL,
                "landlock", details));
    }

    @Override
    public Optional<Diagnostic> confirmConnect(String host, OptionalInt port) {
        if (!rules.refusesConnect(port)) {
            return Optional.empty();
        }
        String subject = subject(host, port, "a TCP connect");
        String allowed = rules.mode() == NetworkMode.NONE ? "network mode none allows no TCP at all"
                : "only the run's proxy and the declared ports " + rules.connect() + " are reachable";
        Map<String, String> details = details(host, port, "port outside the TCP rules");
        String said = "";
        NetworkAdvice advice = host.isEmpty() || LOOPBACK.contains(host) ? null : NetworkAdvice.classify(host, Optional.empty());
        if (advice instanceof NetworkAdvice.AttackLike attack) {
            details.put(DetailKey.CLASS.key(), advice.label());
            details.put(DetailKey.ATTACK.key(), attack.why());
            said = "; this looks like an attack (" + attack.why() + "), so nothing is suggested";
        } else if (advice instanceof NetworkAdvice.Hint hint) {
            // Another host is reached through the proxy: declare the host, not a port.
            details.put(DetailKey.CLASS.key(), advice.label());
            details.put(DetailKey.ALLOW_YAML.key(), hint.yaml());
        } else if (port.isPresent()) {
            // A loopback service (a database, a dev server): its port.
            details.put(DetailKey.CLASS.key(), "hint");
            details.put(DetailKey.ALLOW_YAML.key(), NetworkAdvice.portYaml("ports", port.getAsInt()));
        }
        return Optional.of(new Diagnostic(Code.MGS2013, "connect denied: " + subject + " is outside the run's network policy ("
                + allowed + ")" + said, subject, Operation.CONNECT, Layer.KERNEL, "landlock", details));
    }

    /** What a refusal names: {@code host:port}, {@code port N}, or {@code what} when the port is unknown. */
    private static String subject(String host, OptionalInt port, String what) {
        return port.isPresent() ? (host.isEmpty() ? "port " : host + ":") + port.getAsInt() : what;
    }

    /** The details every refusal carries: host, port when known, and why the rules refuse it. */
    private Map<String, String> details(String host, OptionalInt port, String outsideRules) {
        Map<String, String> details = new TreeMap<>();
        details.put(DetailKey.HOST.key(), host);
        port.ifPresent(p -> details.put(DetailKey.PORT.key(), Integer.toString(p)));
        details.put(DetailKey.REASON.key(), rules.mode() == NetworkMode.NONE ? "network mode none" : outsideRules);
        return details;
    }
}
