package dev.magus.landlock.compile;

import dev.magus.landlock.abi.AbiRights;
import dev.magus.landlock.sys.Errno;
import dev.magus.landlock.sys.FdStat;
import dev.magus.landlock.sys.Landlock;
import dev.magus.landlock.sys.NoLinkOpen;
import dev.magus.landlock.sys.Natives;
import dev.magus.landlock.sys.Structs;
import dev.magus.landlock.sys.Syscalls;
import dev.magus.policy.fs.AccessMode;
import dev.magus.policy.fs.Rule;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * A policy's rules compiled into a kernel ruleset for one ABI, held as its descriptor.
 * Compile once per policy, on an ordinary thread; every confined spawn applies it to its
 * launch thread. Closing it closes the descriptor once no spawn is using it.
 */
public final class CompiledRuleset implements AutoCloseable {
    private static final Syscalls SYS = Natives.syscalls();

    /** A rule as the kernel received it. */
    public record Grant(Path path, FileKind kind, long rights, String origin) {
    }

    /** A rule left out: its path is absent on the host (the kernel denies it anyway), or grants nothing at this ABI. */
    public record Skipped(Path path, String origin, String reason) {
    }

    /** A TCP port rule as the kernel received it: {@code rights} is connect, bind or both. */
    public record PortGrant(int port, long rights) {
    }

    private final int abi;
    private final long handledFs;
    private final long handledNet;
    private final long scoped;
    private final List<Grant> grants;
    private final List<Skipped> skipped;
    private final List<PortGrant> portGrants;
    private int fd;
    private int leases;
    private boolean closed;

    private CompiledRuleset(int abi, long handledFs, long handledNet, long scoped, int fd, List<Grant> grants,
            List<Skipped> skipped, List<PortGrant> portGrants) {
        this.abi = abi;
        this.handledFs = handledFs;
        this.handledNet = handledNet;
        this.scoped = scoped;
        this.fd = fd;
        this.grants = List.copyOf(grants);
        this.skipped = List.copyOf(skipped);
        this.portGrants = List.copyOf(portGrants);
    }

    /**
     * Builds the kernel ruleset: every right {@code abi} knows is handled (so what is not
     * granted is denied), plus ABI 6 scoping; each rule's path is opened {@code O_PATH} and
     * granted the rights its bits map to. Rule paths must be resolved already: a path with a
     * symbolic link in it now is skipped (ELOOP), never granted where the link leads.
     *
     * @throws IllegalStateException when the kernel refuses the ruleset or a rule (a bug, not
     *                               a host condition: rights are masked to the ABI first)
     */
    public static CompiledRuleset compile(Collection<Rule> rules, int abi) {
        return compile(rules, NetRules.OPEN, abi);
    }

    /**
     * {@link #compile(Collection, int)} with the run's TCP rules: from ABI 4, when {@code net}
     * confines, TCP bind and connect are handled and each granted port added; under network
     * mode {@code open} (or below ABI 4, which the decision reports) nothing of TCP is handled,
     * so the ruleset is the filesystem one alone.
     */
    public static CompiledRuleset compile(Collection<Rule> rules, NetRules net, int abi) {
        Objects.requireNonNull(rules, "rules");
        Objects.requireNonNull(net, "net");
        if (abi <= 0) {
            throw new IllegalArgumentException("no ruleset without Landlock (ABI " + abi + ")");
        }
        Natives.require();
        int known = Math.min(abi, AbiRights.NEWEST_KNOWN);
        long handled = AbiRights.handledFs(known);
        long scoped = AbiRights.scoped(known);
        long handledNet = net.handled() & AbiRights.handledNet(known);
        int rulesetFd = create(handled, handledNet, scoped);
        List<Grant> grants = new ArrayList<>();
        List<Skipped> skipped = new ArrayList<>();
        List<PortGrant> ports = new ArrayList<>();
        try {
            Structs.PathBeneathAttr attr = new Structs.PathBeneathAttr();
            for (Rule rule : rules) {
                addRule(rulesetFd, attr, rule.path(), rule.mode(), rule.origin(), known, grants, skipped);
            }
            if (handledNet != 0) {
                addPorts(rulesetFd, net, ports);
            }
        } catch (RuntimeException e) {
            SYS.close(rulesetFd);
            throw e;
        }
        return new CompiledRuleset(known, handled, handledNet, scoped, rulesetFd, grants, skipped, ports);
    }

    private static void addPorts(int rulesetFd, NetRules net, List<PortGrant> out) {
        java.util.SortedSet<Integer> all = new java.util.TreeSet<>(net.connect());
        all.addAll(net.bind());
        Structs.NetPortAttr attr = new Structs.NetPortAttr();
        for (int port : all) {
            long rights = (net.connect().contains(port) ? Landlock.NET_CONNECT_TCP : 0)
                    | (net.bind().contains(port) ? Landlock.NET_BIND_TCP : 0);
            attr.allowed_access = rights;
            attr.port = port;
            attr.write();
            long r = SYS.landlockAddNetPort(rulesetFd, attr.getPointer());
            if (r < 0) {
                throw new IllegalStateException("landlock_add_rule(port " + port + ", 0x" + Long.toHexString(rights)
                        + ") failed: " + Errno.describe((int) -r));
            }
            out.add(new PortGrant(port, rights));
        }
    }

    /**
     * A ruleset that handles every right and grants all of them on {@code /}: a real domain
     * that denies nothing. The launcher warms its code path under it.
     */
    public static CompiledRuleset allowAll(int abi) {
        return compile(List.of(new Rule(Path.of("/"), AccessMode.RWX, "allow-all")), abi).withEverything();
    }

    private CompiledRuleset withEverything() {
        // compile() masked / to rwx's rights; add the rest so nothing at all is denied.
        Structs.PathBeneathAttr attr = new Structs.PathBeneathAttr();
        int root = openPath(Path.of("/"));
        try {
            attr.allowed_access = handledFs;
            attr.parent_fd = root;
            attr.write();
            long r = SYS.landlockAddPathBeneath(fd, attr.getPointer());
            if (r < 0) {
                throw new IllegalStateException("landlock_add_rule(/) failed: " + Errno.describe((int) -r));
            }
        } finally {
            SYS.close(root);
        }
        return this;
    }

    private static int create(long handled, long handledNet, long scoped) {
        Structs.RulesetAttr attr = new Structs.RulesetAttr();
        attr.handled_access_fs = handled;
        attr.handled_access_net = handledNet;
        attr.scoped = scoped;
        attr.write();
        long r = SYS.landlockCreateRuleset(attr.getPointer(), attr.size());
        if (r < 0) {
            throw new IllegalStateException("landlock_create_ruleset failed: " + Errno.describe((int) -r));
        }
        return (int) r;
    }

    private static void addRule(int rulesetFd, Structs.PathBeneathAttr attr, Path path, AccessMode mode, String origin,
                                int abi, List<Grant> grants, List<Skipped> skipped) {
        int pathFd = openPath(path);
        if (pathFd < 0) {
            skipped.add(new Skipped(path, origin, pathFd == -Errno.ELOOP
                    ? "a component is a symbolic link now, not what the policy resolved: granted nothing"
                    : "cannot open: " + Errno.describe(-pathFd)));
            return;
        }
        try {
            FileKind kind = kindOf(pathFd);
            long rights = Rights.of(mode, kind, abi);
            if (rights == 0) {
                skipped.add(new Skipped(path, origin, "grants no right at ABI " + abi));
                return;
            }
            attr.set(rights, pathFd);
            long r = SYS.landlockAddPathBeneath(rulesetFd, attr.getPointer());
            if (r < 0) {
                throw new IllegalStateException("landlock_add_rule(" + path + ", 0x" + Long.toHexString(rights)
                        + ") failed: " + Errno.describe((int) -r));
            }
            grants.add(new Grant(path, kind, rights, origin));
        } finally {
            SYS.close(pathFd);
        }
    }

    /**
     * The descriptor, or {@code -errno}. A rule's path arrives resolved (every component the
     * real one), so no link is followed: one there now was swapped in since the policy was
     * built, and following it would grant its target ({@link NoLinkOpen}).
     */
    private static int openPath(Path path) {
        return NoLinkOpen.open(path.toString());
    }

    // Through the descriptor, so the kind is that of the inode the rule names even if the path changed since.
    private static FileKind kindOf(int fd) {
        java.util.OptionalInt mode = FdStat.mode(fd);
        // Without a kind only file rights are safe to ask for.
        return mode.isPresent() ? FileKind.ofMode(mode.getAsInt()) : FileKind.FILE;
    }

    public int abi() {
        return abi;
    }

    public long handledFs() {
        return handledFs;
    }

    public long scoped() {
        return scoped;
    }

    /** The TCP rights handled: 0 under network mode open or below ABI 4. */
    public long handledNet() {
        return handledNet;
    }

    /** The TCP ports granted, in port order. */
    public List<PortGrant> portGrants() {
        return portGrants;
    }

    public List<Grant> grants() {
        return grants;
    }

    public List<Skipped> skipped() {
        return skipped;
    }

    /** A hold on the descriptor for one spawn; the descriptor stays open until every lease is closed. */
    public Lease lease() {
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("ruleset already closed");
            }
            leases++;
            return new Lease(this, fd);
        }
    }

    private synchronized void release() {
        leases--;
        if (closed && leases == 0) {
            closeFd();
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (leases == 0) {
            closeFd();
        }
    }

    private void closeFd() {
        if (fd >= 0) {
            SYS.close(fd);
            fd = -1;
        }
    }

    /** See {@link #lease()}. */
    public static final class Lease implements AutoCloseable {
        private final CompiledRuleset owner;
        private final int fd;
        private boolean released;

        private Lease(CompiledRuleset owner, int fd) {
            this.owner = owner;
            this.fd = fd;
        }

        public int fd() {
            return fd;
        }

        public int abi() {
            return owner.abi;
        }

        @Override
        public void close() {
            synchronized (owner) {
                if (released) {
                    return;
                }
                released = true;
            }
            owner.release();
        }
    }
}
