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
        return new Scrubber(Objects.requireNonNull(platform), Objects.requireNonNull(passthrough));
    }

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
