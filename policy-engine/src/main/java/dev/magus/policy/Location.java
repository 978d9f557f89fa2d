package dev.magus.policy;

import java.nio.file.Path;
import java.util.Objects;

/** Where a declared entry points on one host, or why it grants nothing there. */
public sealed interface Location permits Location.At, Location.GrantsNothing {

    /**
     * @param path absolute and normalized, not yet resolved through symlinks
     * @param how  where it came from: {@code $GOCACHE}, {@code xdgCache/go-build}, {@code ~/x}
     */
    record At(Path path, String how) implements Location {
        public At {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(how, "how");
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
