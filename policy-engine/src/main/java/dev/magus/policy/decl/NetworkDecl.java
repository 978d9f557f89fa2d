package dev.magus.policy.decl;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Echo;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import dev.magus.policy.net.HostPattern;
import dev.magus.policy.net.NetworkMode;
import dev.magus.policy.net.NetworkPolicy;
import dev.magus.policy.net.UnixSockets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * One layer's {@code sandbox.network} (the README shows one): the mode, which is the workspace's
 * alone, and what the layer adds to the run's reach. Every layer has the same shape.
 *
 * @param mode  the workspace's mode; empty at every other layer, and when magus.yaml leaves it out
 * @param allow the hosts reached through the proxy, in the order written, each once
 * @param ports loopback ports the child may connect to without the proxy
 * @param bind  ports the child may listen on
 * @param unix  the workspace's Unix socket declaration ({@link UnixSockets}); empty elsewhere
 */
public record NetworkDecl(Optional<NetworkMode> mode, List<HostPattern> allow, SortedSet<Integer> ports,
        SortedSet<Integer> bind, Optional<UnixSockets> unix) {
    public static final NetworkDecl EMPTY = new NetworkDecl(Optional.empty(), List.of(), new TreeSet<>(), new TreeSet<>(),
            Optional.empty());
    /** The keys of {@code sandbox.network}. */
    public static final List<String> KEYS = List.of("mode", "allow", "ports", "bind", "unix");
    /** {@code unix: allow}; {@code unix: deny} is the same as saying nothing. */
    public static final String UNIX_ALLOW = "allow";
    public static final String UNIX_DENY = "deny";

    public NetworkDecl {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(unix, "unix");
        allow = List.copyOf(new java.util.LinkedHashSet<>(allow));
        ports = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(ports));
        bind = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(bind));
        for (int p : ports) {
            checkPort(p);
        }
        for (int p : bind) {
            checkPort(p);
        }
    }

    /** Whether the layer declares anything at all. */
    public boolean isEmpty() {
        return mode.isEmpty() && allow.isEmpty() && ports.isEmpty() && bind.isEmpty() && unix.isEmpty();
    }

    /**
     * Builds one layer's declaration from the words it wrote; anything it cannot honor is
     * MGS2004 naming the layer and key ({@code magus.yaml:4:12 sandbox.network.allow[1]}).
     *
     * @param site where {@code sandbox.network} was written; its field origins may name
     *             {@code mode}, {@code allow[i]}, {@code ports[i]} and {@code bind[i]}
     */
    public static NetworkDecl declare(Optional<String> mode, List<String> allow, List<String> ports, List<String> bind,
            DeclLayer layer, Site site) {
        return declare(mode, allow, ports, bind, Optional.empty(), layer, site);
    }

    /**
     * {@link #declare(Optional, List, List, List, DeclLayer, Site)} with {@code unix} as
     * written: one word ({@code allow} or {@code deny}, a scalar in YAML) or absolute paths
     * of socket files (a list); the workspace's alone, like the mode.
     */
    public static NetworkDecl declare(Optional<String> mode, List<String> allow, List<String> ports, List<String> bind,
            Optional<List<String>> unix, DeclLayer layer, Site site) {
        Optional<NetworkMode> m = Optional.empty();
        if (mode.isPresent()) {
            if (!(layer instanceof DeclLayer.Workspace)) {
                throw refused(site, "mode", "the network mode is the workspace's alone: " + layer.label()
                        + " may add allow, ports and bind, never set the mode");
            }
            m = Optional.of(NetworkMode.parse(mode.get()).orElseThrow(() -> refused(site, "mode",
                    "unknown network mode " + Echo.quoted(mode.get()) + " (expected open, none or proxy)")));
        }
        List<HostPattern> hosts = new ArrayList<>();
        for (int i = 0; i < allow.size(); i++) {
            hosts.add(host(allow.get(i), site, "allow[" + i + "]"));
        }
        return new NetworkDecl(m, hosts, ports(ports, site, "ports"), ports(bind, site, "bind"), unix(unix, layer, site));
    }

    private static Optional<UnixSockets> unix(Optional<List<String>> written, DeclLayer layer, Site site) {
        if (written.isEmpty()) {
            return Optional.empty();
        }
        if (!(layer instanceof DeclLayer.Workspace)) {
            throw refused(site, "unix", "Unix sockets are the workspace's to declare: " + layer.label()
                    + " may add allow, ports and bind, never unix");
        }
        List<String> w = written.get();
        if (w.size() == 1 && w.get(0).strip().equals(UNIX_ALLOW)) {
            return Optional.of(new UnixSockets.Any());
        }
        if (w.size() == 1 && w.get(0).strip().equals(UNIX_DENY)) {
            return Optional.of(UnixSockets.UNDECLARED);
        }
        if (w.isEmpty()) {
            throw refused(site, "unix", "sandbox.network.unix is allow, deny or a list of socket paths, not an empty list");
        }
        List<java.nio.file.Path> paths = new ArrayList<>();
        for (int i = 0; i < w.size(); i++) {
            String p = w.get(i).strip();
            java.nio.file.Path path;
            try {
                path = java.nio.file.Path.of(p);
            } catch (java.nio.file.InvalidPathException e) {
                path = null;
            }
            if (path == null || !path.isAbsolute() || p.equals(UNIX_ALLOW) || p.equals(UNIX_DENY)) {
                throw refused(site, "unix[" + i + "]", "Unix socket " + Echo.quoted(w.get(i))
                        + " must be an absolute path (or the whole value allow or deny)");
            }
            paths.add(path.normalize());
        }
        return Optional.of(new UnixSockets.Paths(paths));
    }

    /** This declaration as the layer {@code origin} of a merge ({@link NetworkPolicy#merge}). */
    public NetworkPolicy.Layered layered(String origin) {
        return new NetworkPolicy.Layered(origin, mode, unix, allow, ports, bind);
    }

    /**
     * The hosts of {@code --allow-host}, each parsed as a declared one is.
     *
     * @throws SandboxException MGS2004 naming the flag for a host that cannot be one
     */
    public static List<HostPattern> flagHosts(List<String> written) {
        List<HostPattern> out = new ArrayList<>();
        for (String w : written) {
            out.add(host(w, Site.of(NetworkPolicy.FLAG, Echo.cut(w)), ""));
        }
        return List.copyOf(out);
    }

    /**
     * A host as written in a declaration or a flag.
     *
     * @throws SandboxException MGS2004 at {@code site}'s {@code field} when it cannot be a host
     */
    public static HostPattern host(String written, Site site, String field) {
        HostPattern.Result r = HostPattern.parse(written);
        if (r instanceof HostPattern.Result.Refused refused) {
            throw refused(site, field, "host " + Echo.quoted(written) + ": " + refused.why());
        }
        return ((HostPattern.Result.Parsed) r).pattern();
    }

    private static SortedSet<Integer> ports(List<String> written, Site site, String key) {
        SortedSet<Integer> out = new TreeSet<>();
        for (int i = 0; i < written.size(); i++) {
            String field = key + "[" + i + "]";
            String w = written.get(i).strip();
            int port;
            try {
                port = w.matches("[0-9]{1,5}") ? Integer.parseInt(w) : -1;
            } catch (NumberFormatException e) {
                port = -1;
            }
            if (port < 1 || port > 65535) {
                throw refused(site, field, "port " + Echo.quoted(written.get(i)) + " is not a TCP port (1 to 65535)");
            }
            out.add(port);
        }
        return out;
    }

    private static void checkPort(int p) {
        if (p < 1 || p > 65535) {
            throw new IllegalArgumentException("not a TCP port: " + p);
        }
    }

    static SandboxException refused(Site site, String field, String message) {
        return new SandboxException(Diagnostic.of(Code.MGS2004, message, site.subject(field), Operation.NONE, Layer.POLICY,
                site.source(field)));
    }
}
