package dev.magus.landlock.supervise;

import java.time.Duration;
import java.util.Objects;

/**
 * A run's approver and how long a caller waits for it before the access is denied.
 *
 * @param approver who decides
 * @param timeout  how long one ask may take; then the call fails with {@code EACCES}
 */
public record Approval(Approver approver, Duration timeout) {
    /** How long an ask waits when nothing else is said. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    public Approval {
        Objects.requireNonNull(approver, "approver");
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("an ask's timeout must be positive: " + timeout);
        }
    }

    public Approval(Approver approver) {
        this(approver, DEFAULT_TIMEOUT);
    }
}
