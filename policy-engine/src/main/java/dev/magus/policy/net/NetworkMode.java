package dev.magus.policy.net;

import java.util.Optional;

/**
 * {@code sandbox.network.mode}: what a confined run may do over TCP.
 *
 * <ul>
 *   <li>{@code open} (the default): not confined, as the specification's sandbox has it;
 *   <li>{@code none}: no TCP connect and no bind at all;
 *   <li>{@code proxy}: connect only to the run's proxy (which lets through only the declared
 *       hosts) and to the declared loopback ports; bind only the declared ports.
 * </ul>
 */
public enum NetworkMode {
    OPEN("open"), NONE("none"), PROXY("proxy");

    private final String spelling;

    NetworkMode(String spelling) {
        this.spelling = spelling;
    }

    public String spelling() {
        return spelling;
    }

    /** Whether the kernel's TCP rules are asked for: everything but {@code open}. */
    public boolean confinesTcp() {
        return this != OPEN;
    }

    /** Exact spelling only. */
    public static Optional<NetworkMode> parse(String text) {
        for (NetworkMode m : values()) {
            if (m.spelling.equals(text)) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return spelling;
    }
}
