package dev.magus.landlock.compile;

import dev.magus.landlock.sys.Landlock;
import dev.magus.policy.net.NetworkMode;
import dev.magus.policy.net.NetworkPolicy;
import java.util.Collections;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * A run's network policy as Landlock's TCP rules (ABI 4): which rights the ruleset handles and
 * the ports each is granted on. Pure.
 *
 * <p>Landlock's TCP rules name a port, never an address: a grant to connect to the proxy's
 * port lets the child connect to that port on any host. The proxy's port is an ephemeral one
 * on loopback, so in practice that reaches the proxy; a declared {@code ports} entry (5432)
 * reaches that port everywhere. UDP is not handled at all.
 *
 * @param mode    the network mode it came from
 * @param connect ports the child may connect to (the proxy's first, then the declared ones)
 * @param bind    ports the child may listen on
 */
public record NetRules(NetworkMode mode, SortedSet<Integer> connect, SortedSet<Integer> bind) {
    /** {@code open}: nothing handled, so the ruleset is exactly the filesystem one. */
    public static final NetRules OPEN = new NetRules(NetworkMode.OPEN, new TreeSet<>(), new TreeSet<>());

    public NetRules {
        Objects.requireNonNull(mode, "mode");
        connect = Collections.unmodifiableSortedSet(new TreeSet<>(connect));
        bind = Collections.unmodifiableSortedSet(new TreeSet<>(bind));
        if (mode != NetworkMode.PROXY && !(connect.isEmpty() && bind.isEmpty())) {
            throw new IllegalArgumentException("only mode proxy grants ports, not " + mode);
        }
    }

    /**
     * @param proxyPort the run's proxy on loopback; required under {@code proxy}
     * @throws IllegalArgumentException under {@code proxy} without a proxy port (a caller bug:
     *                                  never a ruleset that silently allows nothing to the proxy)
     */
    public static NetRules of(NetworkPolicy policy, OptionalInt proxyPort) {
        return switch (policy.mode()) {
            case OPEN -> OPEN;
            case NONE -> new NetRules(NetworkMode.NONE, new TreeSet<>(), new TreeSet<>());
            case PROXY -> {
                TreeSet<Integer> connect = new TreeSet<>(policy.ports().keySet());
                connect.add(proxyPort.orElseThrow(() -> new IllegalArgumentException("mode proxy needs the run's proxy port")));
                yield new NetRules(NetworkMode.PROXY, connect, new TreeSet<>(policy.bind().keySet()));
            }
        };
    }

    /** Whether the kernel is asked to hold TCP at all. */
    public boolean confines() {
        return mode.confinesTcp();
    }

    /** The rights the ruleset handles: both TCP rights, or none under {@code open}. */
    public long handled() {
        return confines() ? Landlock.NET_BIND_TCP | Landlock.NET_CONNECT_TCP : 0;
    }

    /** What MGS2005 names when the host's Landlock cannot hold these rules. */
    public String unenforcedPhrase() {
        return "TCP connect and bind (network mode " + mode.spelling() + ")";
    }

    /**
     * Whether the kernel refuses a connect to {@code port} under these rules; with no port
     * known, only when no port at all is allowed (mode {@code none}).
     */
    public boolean refusesConnect(java.util.OptionalInt port) {
        if (!confines()) {
            return false;
        }
        return port.isPresent() ? !connect.contains(port.getAsInt()) : connect.isEmpty();
    }

    /**
     * Whether the kernel refuses a bind on {@code port} under these rules; with no port known,
     * only when no port at all may be bound. Port 0 (any free port) is refused unless 0 is granted.
     */
    public boolean refusesBind(java.util.OptionalInt port) {
        if (!confines()) {
            return false;
        }
        return port.isPresent() ? !bind.contains(port.getAsInt()) : bind.isEmpty();
    }
}
