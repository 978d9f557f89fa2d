package dev.magus.policy.fs;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One allowlist entry: a resolved, absolute path and the bits it grants to it and
 * everything beneath it.
 *
 * @param path   absolute, normalized and already resolved the way the kernel walks it
 * @param mode   the bits granted
 * @param origin which layer and declaration granted it ({@code core:/usr},
 *               {@code workspace:mise-installs}, {@code spell:go}, {@code target:test}), for
 *               {@code magus policy} and for "nearest rule" hints
 */
public record Rule(Path path, AccessMode mode, String origin) {
    public Rule {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(origin, "origin");
        if (!path.isAbsolute()) {
            throw new IllegalArgumentException("rule path must be absolute: " + path);
        }
        path = path.normalize();
    }
}
