package dev.magus.policy;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/** Where a declared entry points on one host, or why it grants nothing there. */
public sealed interface Location permits Location.At, Location.GrantsNothing {

    /**
     * @param path absolute, and spelled as declared: not normalized, since {@code ..} climbs
     *             out of the directory the kernel resolved, not out of the name written, so
     *             only the resolver may take it (the specification, "How paths are resolved")
     * @param how  where it came from: {@code $GOCACHE}, {@code xdgCache/go-build}, {@code ~/x}
     * @param base the directory of a base the path is under when a variable gave it (the
     *             value of {@code $XDG_CACHE_HOME} for {@code xdgCache}), which must not resolve
     *             to home or an ancestor of it either, as it must not be one as written; empty
     *             without a base and for a base's fixed directory ({@code ~/.cache}, {@code ~}
     *             for {@code home}, the workspace)
     */
    record At(Path path, String how, Optional<Path> base) implements Location {
        public At {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(how, "how");
            Objects.requireNonNull(base, "base");
        }

        /** A location under no base. */
        public At(Path path, String how) {
            this(path, how, Optional.empty());
        }
    }

    /**
     * Not an error: {@code GOCACHE=off} on one host is the tool's own business. Recorded so
     * {@code magus policy} can show it.
     */
    record GrantsNothing(String why) implements Location {
        public GrantsNothing {
            Objects.requireNonNull(why, "why");
        }
    }
}
