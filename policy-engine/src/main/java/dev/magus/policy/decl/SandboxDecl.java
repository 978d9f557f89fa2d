package dev.magus.policy.decl;

import dev.magus.env.Allowlist;
import java.util.List;
import java.util.Objects;

/**
 * One layer's declaration, the same shape at every layer: {@code allow} entries and the
 * {@code env.passthrough} allowlist. The sandbox mode is not part of it: the mode and the
 * other settings are the workspace's alone, so they live in the workspace config.
 */
public record SandboxDecl(List<SandboxAllow> allow, Allowlist passthrough, DeclLayer layer) {
    public SandboxDecl {
        allow = List.copyOf(allow);
        Objects.requireNonNull(passthrough, "passthrough");
        Objects.requireNonNull(layer, "layer");
        for (SandboxAllow a : allow) {
            if (!a.layer().equals(layer)) {
                throw new IllegalArgumentException("entry " + a.site().key() + " belongs to " + a.layer().label()
                        + ", not " + layer.label());
            }
        }
    }

    public SandboxDecl(List<SandboxAllow> allow, SandboxEnv env, DeclLayer layer) {
        this(allow, env.passthrough(), layer);
    }

    /** A layer that declares nothing. */
    public static SandboxDecl empty(DeclLayer layer) {
        return new SandboxDecl(List.of(), Allowlist.EMPTY, layer);
    }

    public SandboxEnv env() {
        return new SandboxEnv(passthrough);
    }
}
