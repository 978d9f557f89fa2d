package dev.magus.policy.fs;

import java.util.Optional;

/** A set of {@link Access} bits, as a value. Spelled {@code ro}, {@code rw}, {@code rx}, {@code rwx}, or {@code r}/{@code -} for display. */
public record AccessMode(int bits) {
    public static final AccessMode NONE = new AccessMode(0);
    public static final AccessMode R = new AccessMode(1);
    public static final AccessMode RW = new AccessMode(3);
    public static final AccessMode RX = new AccessMode(5);
    public static final AccessMode RWX = new AccessMode(7);

    public AccessMode {
        if ((bits & ~7) != 0) {
            throw new IllegalArgumentException("access bits out of range: " + bits);
        }
    }

    public static AccessMode of(Access... accesses) {
        int b = 0;
        for (Access a : accesses) {
            b |= a.bit();
        }
        return new AccessMode(b);
    }

    public boolean has(Access access) {
        return (bits & access.bit()) != 0;
    }

    public boolean covers(AccessMode other) {
        return (bits & other.bits) == other.bits;
    }

    public AccessMode union(AccessMode other) {
        return new AccessMode(bits | other.bits);
    }

    public boolean isEmpty() {
        return bits == 0;
    }

    /**
     * The declaration spellings of the specification: {@code ro} (the default), {@code rw},
     * {@code rx}, {@code rwx}. Exec is never implied. Anything else is empty.
     */
    public static Optional<AccessMode> parseDeclared(String text) {
        return switch (text) {
            case "ro" -> Optional.of(R);
            case "rw" -> Optional.of(RW);
            case "rx" -> Optional.of(RX);
            case "rwx" -> Optional.of(RWX);
            default -> Optional.empty();
        };
    }

    /** {@code rwx}, {@code r-x}, {@code rw-}, {@code r--}. */
    public String letters() {
        StringBuilder sb = new StringBuilder(3);
        for (Access a : Access.values()) {
            sb.append(has(a) ? a.letter() : '-');
        }
        return sb.toString();
    }

    /** The shortest declaration that grants this mode ({@code ro}, {@code rw}, {@code rx}, {@code rwx}), for "add this YAML" hints. */
    public String declared() {
        boolean w = has(Access.WRITE);
        boolean x = has(Access.EXEC);
        return w && x ? "rwx" : w ? "rw" : x ? "rx" : "ro";
    }

    @Override
    public String toString() {
        return letters();
    }
}
