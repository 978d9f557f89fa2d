package dev.magus.env.child;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The directories a sandboxed run's environment points at.
 *
 * @param privateTemp the run's private temp dir, handed over as {@code TMPDIR}
 * @param cacheDir    magus's cache dir, handed over as {@code MAGUS_CACHE_DIR}
 * @param stateDir    magus's state dir, handed over as {@code MAGUS_STATE_DIR}
 */
public record SandboxDirs(Path privateTemp, Path cacheDir, Path stateDir) {
    public SandboxDirs {
        requireAbsolute(privateTemp, "privateTemp");
        requireAbsolute(cacheDir, "cacheDir");
        requireAbsolute(stateDir, "stateDir");
    }

    /** A relative directory would mean something else in every child's working directory. */
    private static void requireAbsolute(Path p, String what) {
        Objects.requireNonNull(p, what);
        if (!p.isAbsolute()) {
            throw new IllegalArgumentException(what + " must be absolute: " + p);
        }
    }
}
