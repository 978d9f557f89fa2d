package dev.magus.env.scrub;

import dev.magus.env.Allowlist;
import dev.magus.env.MagusVariables;
import dev.magus.env.platform.Platform;
import java.util.Collections;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The filter that rebuilds a child's environment from an allowlist: a host variable survives
 * when the platform baseline or the passthrough names it, or when magus owns it (a later
 * stage of childEnv replaces, writes or withholds those). Built once per policy; the
 * per-variable test is one hash lookup and a few {@code startsWith}, no regex.
 */
public final class Scrubber {
    private final Platform platform;
    private final Allowlist passthrough;
    private final Set<String> exact;
    private final String[] prefixes;

    private Scrubber(Platform platform, Allowlist passthrough) {
        this.platform = platform;
        this.passthrough = passthrough;
        Allowlist all = allowlist();
        Set<String> names = new HashSet<>(all.names());
        names.addAll(MagusVariables.OWNED);
        this.exact = Set.copyOf(names);
        this.prefixes = all.prefixes().toArray(String[]::new);
    }

    /**
     * @param passthrough every layer's {@code env.passthrough}, already merged by the caller
     */
    public static Scrubber of(Platform platform, Allowlist passthrough) {
        Objects.requireNonNull(platform);
        Objects.requireNonNull(passthrough);
        // A scrubber is a pure function of its two inputs and immutable: the last one built is
        // handed out again for equal inputs (a server builds one per run, nearly always for the
        // same workspace), anything else builds a fresh one. Set equality of the allowlist is
        // exact, so a reused scrubber keeps exactly what a fresh one would.
        Scrubber last = LAST;
        if (last != null && last.platform == platform && last.passthrough.equals(passthrough)) {
            return last;
        }
        Scrubber made = fresh(platform, passthrough);
        LAST = made;
        return made;
    }

    /** A scrubber built now, never the memo's: what {@link #of} must be equal to (tests). */
    static Scrubber fresh(Platform platform, Allowlist passthrough) {
        return new Scrubber(Objects.requireNonNull(platform), Objects.requireNonNull(passthrough));
    }

    /** The scrubber {@link #of} built last; immutable, so any thread may be handed it. */
    private static volatile Scrubber LAST;

    public Platform platform() {
        return platform;
    }

    public Allowlist passthrough() {
        return passthrough;
    }

    /** Baseline and passthrough together: what {@code magus policy} shows as the environment half. */
    public Allowlist allowlist() {
        return platform.baseline().union(passthrough);
    }

    /** Whether a host variable of this name reaches the next stage. */
    public boolean keeps(String name) {
        if (exact.contains(name)) {
            return true;
        }
        for (String p : prefixes) {
            if (name.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    /** Filters {@code host}, which is only read. */
    public Scrubbed scrub(Map<String, String> host) {
        TreeMap<String, String> kept = new TreeMap<>();
        int dropped = 0;
        for (Map.Entry<String, String> e : host.entrySet()) {
            if (keeps(e.getKey())) {
                kept.put(e.getKey(), e.getValue());
            } else {
                dropped++;
            }
        }
        return new Scrubbed(Collections.unmodifiableSortedMap(kept), dropped);
    }

    @Override
    public String toString() {
        return "Scrubber[" + platform + ", passthrough=" + passthrough.entries() + "]";
    }
}
