package dev.magus.policy.net;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A run's network policy: the layers' {@code sandbox.network} merged. The mode is the
 * workspace's (open when it says nothing); {@code allow}, {@code ports} and {@code bind} are
 * the union of every layer's, each remembering the layers that granted it, so
 * {@code magus policy} can say who let a host in. Under {@code open} and {@code none} the
 * grants are kept (a spell's registry hosts are always there) but unused.
 *
 * @param mode  what the run may do over TCP
 * @param allow the hosts the proxy lets through, in merge order, each once
 * @param ports ports the child may connect to directly, each with the layers that granted it
 * @param bind  ports the child may listen on, likewise
 * @param unix  the workspace's Unix sockets (the seccomp layer's {@code socket(AF_UNIX)})
 */
public record NetworkPolicy(NetworkMode mode, List<HostGrant> allow, SortedMap<Integer, List<String>> ports,
        SortedMap<Integer, List<String>> bind, UnixSockets unix) {

    /** Nothing declared: the specification's unconfined network (Unix sockets undeclared). */
    public static final NetworkPolicy OPEN = new NetworkPolicy(NetworkMode.OPEN, List.of(), new TreeMap<>(), new TreeMap<>(),
            UnixSockets.UNDECLARED);
    /** How a host granted on the command line is named. */
    public static final String FLAG = "--allow-host";

    /** A host (or pattern) and the layers that declared it ({@code workspace}, {@code spell:node}, {@code --allow-host}). */
    public record HostGrant(HostPattern pattern, List<String> origins) {
        public HostGrant {
            Objects.requireNonNull(pattern, "pattern");
            origins = List.copyOf(origins);
        }
    }

    public NetworkPolicy {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(unix, "unix");
        allow = List.copyOf(allow);
        ports = Collections.unmodifiableSortedMap(new TreeMap<>(ports));
        bind = Collections.unmodifiableSortedMap(new TreeMap<>(bind));
    }

    /**
     * One layer's network declaration and the label it is known by.
     *
     * @param mode only the workspace's layer has one
     * @param unix likewise
     */
    public record Layered(String origin, Optional<NetworkMode> mode, Optional<UnixSockets> unix, List<HostPattern> allow,
            java.util.SortedSet<Integer> ports, java.util.SortedSet<Integer> bind) {
        public Layered {
            Objects.requireNonNull(origin, "origin");
            Objects.requireNonNull(mode, "mode");
            Objects.requireNonNull(unix, "unix");
            allow = List.copyOf(allow);
            ports = java.util.Collections.unmodifiableSortedSet(new java.util.TreeSet<>(ports));
            bind = java.util.Collections.unmodifiableSortedSet(new java.util.TreeSet<>(bind));
        }
    }

    /**
     * Merges the layers in order (the workspace first). The mode is the first layer's, since
     * only the workspace may write one (a declaration refuses it elsewhere).
     */
    public static NetworkPolicy merge(List<Layered> layers) {
        NetworkMode mode = layers.isEmpty() ? NetworkMode.OPEN : layers.get(0).mode().orElse(NetworkMode.OPEN);
        UnixSockets unix = layers.isEmpty() ? UnixSockets.UNDECLARED : layers.get(0).unix().orElse(UnixSockets.UNDECLARED);
        Map<HostPattern, LinkedHashSet<String>> hosts = new LinkedHashMap<>();
        SortedMap<Integer, LinkedHashSet<String>> ports = new TreeMap<>();
        SortedMap<Integer, LinkedHashSet<String>> bind = new TreeMap<>();
        for (Layered l : layers) {
            l.allow().forEach(h -> hosts.computeIfAbsent(h, k -> new LinkedHashSet<>()).add(l.origin()));
            l.ports().forEach(p -> ports.computeIfAbsent(p, k -> new LinkedHashSet<>()).add(l.origin()));
            l.bind().forEach(p -> bind.computeIfAbsent(p, k -> new LinkedHashSet<>()).add(l.origin()));
        }
        List<HostGrant> grants = new ArrayList<>();
        hosts.forEach((h, o) -> grants.add(new HostGrant(h, List.copyOf(o))));
        return new NetworkPolicy(mode, grants, lists(ports), lists(bind), unix);
    }

    /**
     * This policy with the hosts of {@code --allow-host} added: a person's run may reach more
     * than the workspace declares, never change the mode.
     *
     * @throws dev.magus.events.SandboxException MGS2004 naming the flag for a host that cannot be one
     */
    public NetworkPolicy withHosts(List<HostPattern> written) {
        if (written.isEmpty()) {
            return this;
        }
        Map<HostPattern, LinkedHashSet<String>> hosts = new LinkedHashMap<>();
        for (HostGrant g : allow) {
            hosts.put(g.pattern(), new LinkedHashSet<>(g.origins()));
        }
        for (HostPattern h : written) {
            hosts.computeIfAbsent(h, k -> new LinkedHashSet<>()).add(FLAG);
        }
        List<HostGrant> grants = new ArrayList<>();
        hosts.forEach((h, o) -> grants.add(new HostGrant(h, List.copyOf(o))));
        return new NetworkPolicy(mode, grants, ports, bind, unix);
    }

    /** The first grant that lets {@code host} through, exact names before patterns. */
    public Optional<HostGrant> grantFor(String host) {
        Optional<HostGrant> exact = allow.stream().filter(g -> !g.pattern().isWildcard() && g.pattern().matches(host)).findFirst();
        return exact.isPresent() ? exact : allow.stream().filter(g -> g.pattern().matches(host)).findFirst();
    }

    /** Whether {@code host} itself is declared, not only matched by a pattern. */
    public boolean declaresExactly(String host) {
        return allow.stream().anyMatch(g -> !g.pattern().isWildcard() && g.pattern().matches(host));
    }

    /**
     * The proxy's decision on {@code host} once the proxy has resolved it (a literal address
     * resolves to itself). A name is refused when it is not declared, and when any address it
     * resolved to is internal ({@link AddressClass#internal()}) and the name is not declared
     * exactly: a pattern or a public name whose DNS answer points inside (DNS rebinding, the
     * metadata endpoint) does not reach it. One internal answer among public ones refuses the
     * name too, since whoever controls the DNS chooses which one a retry gets.
     */
    public HostVerdict decide(String host, List<InetAddress> resolved) {
        Optional<HostGrant> grant = grantFor(host);
        if (grant.isEmpty()) {
            return new HostVerdict.NotDeclared();
        }
        if (resolved.isEmpty()) {
            return new HostVerdict.Unresolved();
        }
        if (!declaresExactly(host)) {
            for (InetAddress a : resolved) {
                AddressClass c = AddressClass.of(a);
                if (c.internal()) {
                    return new HostVerdict.Internal(a, c);
                }
            }
        }
        return new HostVerdict.Allowed(grant.get(), resolved);
    }

    /** Whether any layer grants anything, for the policy's summary. */
    public boolean declaresAnything() {
        return !allow.isEmpty() || !ports.isEmpty() || !bind.isEmpty();
    }

    private static SortedMap<Integer, List<String>> lists(SortedMap<Integer, LinkedHashSet<String>> in) {
        SortedMap<Integer, List<String>> out = new TreeMap<>();
        in.forEach((k, v) -> out.put(k, List.copyOf(v)));
        return out;
    }
}
