package dev.magus.workspace.quarantine;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * How long and how much the quarantine keeps: runs older than {@code maxAge} go, then the
 * oldest runs until the rest fit in {@code maxBytes}. {@code MAGUS_QUARANTINE_DAYS} and
 * {@code MAGUS_QUARANTINE_MAX_MB} set them; 30 days and 256 MiB otherwise.
 */
public record Retention(Duration maxAge, long maxBytes) {
    public static final Duration DEFAULT_AGE = Duration.ofDays(30);
    public static final long DEFAULT_BYTES = 256L * 1024 * 1024;
    public static final Retention DEFAULT = new Retention(DEFAULT_AGE, DEFAULT_BYTES);

    public Retention {
        Objects.requireNonNull(maxAge, "maxAge");
        if (maxAge.isNegative() || maxBytes < 0) {
            throw new IllegalArgumentException("a retention is not negative: " + maxAge + ", " + maxBytes);
        }
    }

    /** From magus's own environment; a value that is not a whole non-negative number is ignored. */
    public static Retention of(Map<String, String> env) {
        Duration age = DEFAULT_AGE;
        long bytes = DEFAULT_BYTES;
        String days = env.get("MAGUS_QUARANTINE_DAYS");
        if (days != null && days.matches("[0-9]{1,6}")) {
            age = Duration.ofDays(Long.parseLong(days));
        }
        String mb = env.get("MAGUS_QUARANTINE_MAX_MB");
        if (mb != null && mb.matches("[0-9]{1,9}")) {
            bytes = Long.parseLong(mb) * 1024 * 1024;
        }
        return new Retention(age, bytes);
    }
}
