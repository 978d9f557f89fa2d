package dev.magus.landlock.abi;

import dev.magus.landlock.sys.Landlock;
import java.util.ArrayList;
import java.util.List;

/** What each Landlock ABI can enforce. Pure. */
public final class AbiRights {
    private AbiRights() {
    }

    /** The newest ABI whose rights this module knows; a newer kernel is asked for these. */
    public static final int NEWEST_KNOWN = 7;
    /** Required mode's floor: below ABI 3 a child could still truncate any file its user owns. */
    public static final int REQUIRED_MINIMUM = 3;
    /** The first ABI with TCP rules (Linux 6.7). */
    public static final int NETWORK_MINIMUM = 4;

    private static final long V1_FS = Landlock.EXECUTE | Landlock.WRITE_FILE | Landlock.READ_FILE | Landlock.READ_DIR
            | Landlock.REMOVE_DIR | Landlock.REMOVE_FILE | Landlock.MAKE_CHAR | Landlock.MAKE_DIR | Landlock.MAKE_REG
            | Landlock.MAKE_SOCK | Landlock.MAKE_FIFO | Landlock.MAKE_BLOCK | Landlock.MAKE_SYM;

    /** Every filesystem right {@code abi} knows; all of them are handled, so what is not granted is denied. */
    public static long handledFs(int abi) {
        if (abi <= 0) {
            return 0;
        }
        long fs = V1_FS;
        if (abi >= 2) {
            fs |= Landlock.REFER;
        }
        if (abi >= 3) {
            fs |= Landlock.TRUNCATE;
        }
        if (abi >= 5) {
            fs |= Landlock.IOCTL_DEV;
        }
        return fs;
    }

    /** The TCP rights {@code abi} knows: bind and connect from ABI 4. */
    public static long handledNet(int abi) {
        return abi >= NETWORK_MINIMUM ? Landlock.NET_BIND_TCP | Landlock.NET_CONNECT_TCP : 0;
    }

    /**
     * What each layer holds at {@code abi}, one line each, for {@code magus probe}: Landlock's
     * filesystem rights, its TCP rules and scopes, and the seccomp layer beside it.
     */
    public static List<String> layers(int abi) {
        List<String> out = new ArrayList<>();
        out.add("landlock fs: " + (abi <= 0 ? "nothing (no Landlock)" : Long.bitCount(handledFs(abi))
                + " filesystem rights handled (read, write, exec, make, remove" + (abi >= 2 ? ", refer" : "")
                + (abi >= 3 ? ", truncate" : "") + (abi >= 5 ? ", device ioctl" : "") + ")"));
        out.add("landlock net: " + (abi >= NETWORK_MINIMUM ? "TCP connect and bind by port (network modes none and proxy)"
                : "nothing (TCP rules need ABI " + NETWORK_MINIMUM + ")"));
        out.add("landlock scope: " + (abi >= 6 ? "abstract Unix sockets and signals outside the run's domain"
                : "nothing (scopes need ABI 6)"));
        out.add("landlock unix: " + (abi >= 9 ? "pathname Unix sockets by path (sandbox.network.unix)"
                : "no rule naming a socket file below ABI 9: the seccomp layer decides on socket(AF_UNIX)"));
        List<String> seccomp = dev.magus.landlock.seccomp.SocketRules.of(dev.magus.policy.net.NetworkMode.NONE, false).describe();
        for (int i = 0; i < seccomp.size(); i++) {
            boolean network = seccomp.get(i).startsWith("AF_INET") || seccomp.get(i).startsWith("AF_NETLINK");
            out.add("seccomp: " + (network ? "under network none or proxy, " : "") + seccomp.get(i));
        }
        return List.copyOf(out);
    }

    /** Scopes {@code abi} knows: abstract unix sockets and signals from ABI 6. */
    public static long scoped(int abi) {
        return abi >= 6 ? Landlock.SCOPE_ABSTRACT_UNIX_SOCKET | Landlock.SCOPE_SIGNAL : 0;
    }

    /** {@code landlock_restrict_self} flags to ask for: keep auditing the exec'd tool's denials from ABI 7. */
    public static int restrictFlags(int abi) {
        return abi >= 7 ? Landlock.RESTRICT_SELF_LOG_NEW_EXEC_ON : 0;
    }

    /**
     * What the kernel layer leaves unenforced at {@code abi}, one phrase each, for MGS2005.
     * Empty from ABI 6 on. Before ABI 2 renaming or linking across directories is refused
     * outright, which is stricter, not weaker, so it is not listed.
     */
    public static List<String> unenforced(int abi) {
        List<String> gaps = new ArrayList<>();
        if (abi <= 0) {
            gaps.add("filesystem confinement of child processes");
            gaps.add("truncate");
            gaps.add("device ioctl");
            gaps.add("abstract unix socket scoping");
            gaps.add("signal scoping");
            return List.copyOf(gaps);
        }
        if (abi < 3) {
            gaps.add("truncate");
        }
        if (abi < 5) {
            gaps.add("device ioctl");
        }
        if (abi < 6) {
            gaps.add("abstract unix socket scoping");
            gaps.add("signal scoping");
        }
        return List.copyOf(gaps);
    }

    /**
     * What the network policy leaves unconfined at {@code abi}, one phrase each, for
     * {@code magus probe}: Landlock's TCP rules narrower than "the network". UDP, raw, packet
     * and MPTCP sockets are not listed: under {@code none} and {@code proxy} the seccomp layer
     * refuses to open them ({@link dev.magus.landlock.seccomp.SocketRules}).
     */
    public static List<String> networkUnenforced(int abi) {
        List<String> gaps = new ArrayList<>();
        if (abi < NETWORK_MINIMUM) {
            gaps.add("TCP connect and bind (network modes proxy and none need ABI " + NETWORK_MINIMUM + ", Linux 6.7)");
        }
        gaps.add("addresses: a TCP rule names a port, so a granted port (the proxy's, a declared one) is open on every host");
        return List.copyOf(gaps);
    }

    /** {@link #unenforced(int)}, plus {@code network} when the run asks for TCP rules {@code abi} does not have. */
    public static List<String> unenforced(int abi, java.util.Optional<String> network) {
        List<String> gaps = new ArrayList<>(unenforced(abi));
        if (network.isPresent() && abi < NETWORK_MINIMUM) {
            gaps.add(network.get());
        }
        return List.copyOf(gaps);
    }
}
