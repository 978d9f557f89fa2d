package dev.magus.policy.decl;

import dev.magus.env.Allowlist;
import dev.magus.policy.net.NetworkPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The declared layers merged in order: workspace, spells, target, the command line's one-run
 * grants (the policy builder adds the core before them). No layer narrows another: entries and
 * passthrough patterns union, and the same path at two layers keeps both entries, so rx and rw
 * make rwx. Network hosts and ports union too; the mode is the workspace's alone
 * ({@link NetworkPolicy#merge}).
 *
 * @param allow       every entry, workspace first, target last
 * @param passthrough the union of every layer's passthrough
 * @param network     the merged {@code sandbox.network}
 */
public record MergedDecl(List<SandboxAllow> allow, Allowlist passthrough, NetworkPolicy network) {
    public static final MergedDecl EMPTY = new MergedDecl(List.of(), Allowlist.EMPTY);

    public MergedDecl {
        allow = List.copyOf(allow);
        java.util.Objects.requireNonNull(passthrough, "passthrough");
        java.util.Objects.requireNonNull(network, "network");
    }

    /** Without a network declaration: open. */
    public MergedDecl(List<SandboxAllow> allow, Allowlist passthrough) {
        this(allow, passthrough, NetworkPolicy.OPEN);
    }

    /** This merge with {@code network} in place of its own ({@code --allow-host} added, say). */
    public MergedDecl withNetwork(NetworkPolicy network) {
        return new MergedDecl(allow, passthrough, network);
    }

    /**
     * @throws IllegalArgumentException when a declaration sits at the wrong layer (a spell's
     *                                  declaration passed as the workspace's, say): a caller bug
     */
    public static MergedDecl merge(SandboxDecl workspace, List<SandboxDecl> spells, Optional<SandboxDecl> target) {
        return merge(workspace, spells, target, Optional.empty());
    }

    /** As {@link #merge(SandboxDecl, List, Optional)}, with the command line's layer last ({@link CommandLineDecl}). */
    public static MergedDecl merge(SandboxDecl workspace, List<SandboxDecl> spells, Optional<SandboxDecl> target,
            Optional<SandboxDecl> cli) {
        require(workspace, DeclLayer.Workspace.class);
        spells.forEach(s -> require(s, DeclLayer.Spell.class));
        target.ifPresent(t -> require(t, DeclLayer.Target.class));
        cli.ifPresent(c -> require(c, DeclLayer.Cli.class));
        List<SandboxDecl> order = new ArrayList<>();
        order.add(workspace);
        order.addAll(spells);
        target.ifPresent(order::add);
        cli.ifPresent(order::add);
        List<SandboxAllow> allow = new ArrayList<>();
        Allowlist passthrough = Allowlist.EMPTY;
        List<NetworkPolicy.Layered> network = new ArrayList<>();
        for (SandboxDecl d : order) {
            allow.addAll(d.allow());
            passthrough = passthrough.union(d.passthrough());
            network.add(d.network().layered(d.layer().label()));
        }
        return new MergedDecl(allow, passthrough, NetworkPolicy.merge(network));
    }

    private static void require(SandboxDecl decl, Class<? extends DeclLayer> layer) {
        if (!layer.isInstance(decl.layer())) {
            throw new IllegalArgumentException(decl.layer().label() + " declaration passed as "
                    + layer.getSimpleName().toLowerCase(java.util.Locale.ROOT));
        }
    }
}
