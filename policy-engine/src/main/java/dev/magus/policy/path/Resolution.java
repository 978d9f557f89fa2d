package dev.magus.policy.path;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/** The outcome of resolving a requested path with {@link PathResolver}. */
public sealed interface Resolution permits Resolution.Resolved, Resolution.TooManyLinks {

    /**
     * The path the kernel would reach.
     *
     * @param path   absolute and normalized; every existing component is the real one (symlinks
     *               followed, {@code ..} taken from the resolved directory). When a tail does
     *               not exist it is kept as written (lexically normalized) after the resolved
     *               existing prefix.
     * @param exists whether the whole path exists now
     */
    record Resolved(Path path, boolean exists) implements Resolution {
        public Resolved {
            Objects.requireNonNull(path, "path");
            if (!path.isAbsolute()) {
                throw new IllegalArgumentException("resolved path must be absolute: " + path);
            }
        }
    }

    /**
     * More than {@value PathResolver#MAX_LINKS} symbolic links met while resolving (the
     * kernel's ELOOP). The caller denies the request with MGS2009.
     *
     * @param request the request as given (made absolute against the working directory)
     * @param reached the symbolic link at which resolution gave up
     */
    record TooManyLinks(Path request, Path reached) implements Resolution {
        public TooManyLinks {
            Objects.requireNonNull(request, "request");
            Objects.requireNonNull(reached, "reached");
        }
    }

    /** The resolved path, or empty for {@link TooManyLinks}. */
    default Optional<Path> resolvedPath() {
        return this instanceof Resolved r ? Optional.of(r.path()) : Optional.empty();
    }

    /** Whether the resolved path exists now (false for {@link TooManyLinks}). */
    default boolean existing() {
        return this instanceof Resolved r && r.exists();
    }
}
