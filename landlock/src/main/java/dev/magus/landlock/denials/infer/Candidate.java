package dev.magus.landlock.denials.infer;

import dev.magus.events.RunEvent;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A path a child reported as refused, before the policy confirms it.
 *
 * @param hint   the access the message implies
 * @param path   absolute: a relative path is resolved against the child's working directory
 *               (lexically only; the policy resolves links and {@code ..} as the kernel does)
 * @param stream the stream the line came on
 * @param line   the line without ANSI colour codes
 */
public record Candidate(AccessHint hint, Path path, RunEvent.Stream stream, String line) {
    public Candidate {
        Objects.requireNonNull(hint, "hint");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(stream, "stream");
        Objects.requireNonNull(line, "line");
        if (!path.isAbsolute()) {
            throw new IllegalArgumentException("candidate path must be absolute: " + path);
        }
    }

    /** What makes two candidates the same question to the policy. */
    Key key() {
        return new Key(hint, path);
    }

    record Key(AccessHint hint, Path path) {
    }
}
