package dev.magus.policy.decl;

import dev.magus.env.Allowlist;
import java.util.List;
import java.util.Objects;

/**
 * One layer's declaration, the same shape at every layer: {@code allow} entries, the
 * {@code env.passthrough} allowlist and {@code network} (hosts, ports, bind). The sandbox mode
 * is not part of it: the mode and the other settings are the workspace's alone, so they live in
 * the workspace config; the network mode rides in {@code network} and only the workspace may
 * set it.
 */
public record SandboxDecl(List<SandboxAllow> allow, Allowlist passthrough, NetworkDecl network, DeclLayer layer) {
    public SandboxDecl {
        allow = List.copyOf(allow);
        Objects.requireNonNull(passthrough, "passthrough");
        Objects.requireNonNull(network, "network");
        Objects.requireNonNull(layer, "layer");
        if (network.mode().isPresent() && !(layer instanceof DeclLayer.Workspace)) {
            throw new IllegalArgumentException(layer.label() + " sets the network mode, which is the workspace's alone");
        }
        for (SandboxAllow a : allow) {
            if (!a.layer().equals(layer)) {
                throw new IllegalArgumentException("entry " + a.site().key() + " belongs to " + a.layer().label()
                        + ", not " + layer.label());
            }
        }
    }

    /** A layer without a network declaration. */
    public SandboxDecl(List<SandboxAllow> allow, Allowlist passthrough, DeclLayer layer) {
        this(allow, passthrough, NetworkDecl.EMPTY, layer);
    }

    public SandboxDecl(List<SandboxAllow> allow, SandboxEnv env, DeclLayer layer) {
        this(allow, env.passthrough(), NetworkDecl.EMPTY, layer);
    }

    /** A layer that declares nothing. */
    public static SandboxDecl empty(DeclLayer layer) {
        return new SandboxDecl(List.of(), Allowlist.EMPTY, NetworkDecl.EMPTY, layer);
    }

    /** This declaration with {@code network} in place of its own (a spell's registry hosts, say). */
    public SandboxDecl withNetwork(NetworkDecl network) {
        return new SandboxDecl(allow, passthrough, network, layer);
    }

    public SandboxEnv env() {
        return new SandboxEnv(passthrough);
    }
}
