package dev.magus.policy;

import java.util.Objects;

/**
 * Something the policy builder decided not to grant, kept for {@code magus policy}: a core
 * or declared path that does not exist on this host (skipped, as the kernel layer would skip
 * it), or a declaration whose location grants nothing here.
 *
 * @param kind    which of the two
 * @param origin  the rule's origin ({@code core:/lib32}, {@code spell:go})
 * @param subject the path, or the declaration's key when it has no path here
 * @param why     the reason, one line
 */
public record PolicyNote(Kind kind, String origin, String subject, String why) {
    public enum Kind {
        SKIPPED("skipped"), GRANTS_NOTHING("grants nothing"),
        /** A declaration of an untrusted workspace file, left out until {@code magus trust} (MGS2016). */
        NEEDS_TRUST("needs 'magus trust'");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    public PolicyNote {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(why, "why");
    }

    /** {@code grants nothing: $GOCACHE=off is not an absolute path}. */
    public String describe() {
        return kind.label() + ": " + why;
    }
}
