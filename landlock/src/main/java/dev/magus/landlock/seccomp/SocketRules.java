package dev.magus.landlock.seccomp;

import dev.magus.policy.net.NetworkMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Which sockets a confined child may open, for what Landlock cannot hold at ABI 7: it has no rule
 * for pathname Unix sockets (a Docker daemon, an SSH or GPG agent, a desktop bus) and none for
 * anything but TCP (UDP, raw, packet and MPTCP go round the TCP port rules). Pure;
 * {@link SocketFilterProgram} turns it into BPF.
 * <ul>
 *   <li>{@code socket(AF_UNIX, ...)} is refused unless the workspace declares Unix sockets
 *       ({@code sandbox.network.unix}); {@code socketpair} always works (it reaches only the
 *       process and its children).
 *   <li>Under network {@code none} and {@code proxy}, only TCP stream sockets of
 *       {@code AF_INET}/{@code AF_INET6} and {@code NETLINK_ROUTE} sockets open. Netlink route
 *       stays because {@code getaddrinfo} and {@code getifaddrs} read the host's addresses through
 *       it; changing them needs {@code CAP_NET_ADMIN}, which no confined child keeps.
 *   <li>{@code io_uring} is refused (ENOSYS, so runtimes fall back to plain calls): it opens
 *       sockets and creates files without the calls this filter and {@link SetidModes} check.
 * </ul>
 *
 * @param unix    whether {@code socket(AF_UNIX, ...)} is allowed
 * @param tcpOnly whether only TCP (and netlink route) sockets are allowed on the network families
 */
public record SocketRules(boolean unix, boolean tcpOnly) {
    public static final int AF_UNIX = 1;
    public static final int AF_INET = 2;
    public static final int AF_INET6 = 10;
    public static final int AF_NETLINK = 16;
    public static final int AF_PACKET = 17;
    public static final int SOCK_STREAM = 1;
    public static final int SOCK_DGRAM = 2;
    public static final int SOCK_RAW = 3;
    public static final int SOCK_NONBLOCK = 0x800;
    public static final int SOCK_CLOEXEC = 0x80000;
    public static final int IPPROTO_IP = 0;
    public static final int IPPROTO_TCP = 6;
    public static final int IPPROTO_MPTCP = 262;
    public static final int NETLINK_ROUTE = 0;
    public static final int EACCES = 13;
    public static final int ENOSYS = 38;

    /** Nothing refused: network open with Unix sockets declared. */
    public static final SocketRules NOTHING = new SocketRules(true, false);

    /** The rules of a run under {@code mode}, with Unix sockets declared or not. */
    public static SocketRules of(NetworkMode mode, boolean unixDeclared) {
        return new SocketRules(unixDeclared, mode != NetworkMode.OPEN);
    }

    /**
     * Whether any socket is refused. A filter is installed either way (it holds
     * {@link SetidModes} too); this only says whether its socket part refuses anything.
     */
    public boolean refusesAnything() {
        return !unix || tcpOnly;
    }

    /**
     * Why {@code socket(domain, type, protocol)} is refused under these rules, empty when it is
     * allowed: the decision the BPF program makes, as a value (the tests hold the two equal).
     */
    public Optional<String> refusal(int domain, int type, int protocol) {
        if (domain == AF_UNIX) {
            return unix ? Optional.empty() : Optional.of("a Unix socket, and the workspace declares none (sandbox.network.unix)");
        }
        if (!tcpOnly) {
            return Optional.empty();
        }
        int plain = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (domain == AF_INET || domain == AF_INET6) {
            if (plain != SOCK_STREAM) {
                return Optional.of(plain == SOCK_DGRAM ? "a UDP (datagram) socket" : plain == SOCK_RAW ? "a raw socket"
                        : "a socket of type " + plain);
            }
            if (protocol != IPPROTO_IP && protocol != IPPROTO_TCP) {
                return Optional.of(protocol == IPPROTO_MPTCP ? "an MPTCP socket" : "a stream socket of protocol " + protocol);
            }
            return Optional.empty();
        }
        if (domain == AF_NETLINK) {
            return protocol == NETLINK_ROUTE ? Optional.empty() : Optional.of("a netlink socket of protocol " + protocol);
        }
        return Optional.of(domain == AF_PACKET ? "a packet socket" : "a socket of address family " + domain);
    }

    /**
     * Written out, with {@link #hashCode}, rather than left to the record: the generated pair links
     * through method handles on its first call, and the first call is a confined spawn's, which
     * looks its filter up by these rules ({@code SeccompFilter}).
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof SocketRules r && r.unix == unix && r.tcpOnly == tcpOnly;
    }

    @Override
    public int hashCode() {
        return (unix ? 2 : 0) | (tcpOnly ? 1 : 0);
    }

    /** What the layer holds, one line each, for {@code magus probe} and {@code magus policy}. */
    public List<String> describe() {
        List<String> out = new ArrayList<>();
        out.add(unix ? "socket(AF_UNIX): allowed (declared in sandbox.network.unix)"
                : "socket(AF_UNIX): refused (EACCES) unless sandbox.network.unix is declared; socketpair allowed");
        out.add(tcpOnly
                ? "AF_INET/AF_INET6: TCP stream sockets only; UDP, raw, ICMP, MPTCP and other protocols refused (EACCES)"
                : "AF_INET/AF_INET6 and other families: not filtered (network open)");
        if (tcpOnly) {
            out.add("AF_NETLINK: NETLINK_ROUTE only; AF_PACKET and every other family refused (EACCES)");
        }
        out.add("set-user-ID/set-group-ID modes: chmod, fchmod(at/at2), creating open/openat/creat, mknod(at) "
                + "with 06000 bits refused (EPERM); openat2 refused (ENOSYS)");
        out.add("io_uring: refused (ENOSYS), since it opens sockets and creates files without the calls above");
        out.add("foreign architectures (i386 calls) end the process; x32 calls are refused (ENOSYS)");
        return List.copyOf(out);
    }
}
