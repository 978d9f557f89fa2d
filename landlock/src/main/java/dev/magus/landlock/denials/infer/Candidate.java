package dev.magus.landlock.denials.infer;

import dev.magus.events.RunEvent;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A path a child reported as refused, before the policy confirms it.
 *
 * @param hint      the access the message implies
 * @param path      absolute: a relative path is resolved lexically against the child's working directory
 * @param stream    the stream the line came on
 * @param line      the line without ANSI colour codes
 * @param mustExist the message does not say the errno (curl's {@code Couldn't open file}): a missing
 *                  path failed with ENOENT before Landlock was asked, so only an existing one counts
 * @param diedAt    where a script said it died (Perl), when the script's line tells the access
 *                  better than the author's own words
 * @param alternatives where else a relative path may lie when the child's working directory was
 *                  gone: reported only if the policy refuses exactly one of {@code path} and these,
 *                  or (a name to create) {@code path} is where the run started ({@link KernelDenials})
 * @param atStart   {@code path} is the reading from the directory the run started in
 */
public record Candidate(AccessHint hint, Path path, RunEvent.Stream stream, String line, boolean mustExist,
        Optional<DenialParser.ScriptLine> diedAt, List<Path> alternatives, boolean atStart) {
    public Candidate {
        alternatives = List.copyOf(alternatives);
        Objects.requireNonNull(hint, "hint");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(stream, "stream");
        Objects.requireNonNull(line, "line");
        Objects.requireNonNull(diedAt, "diedAt");
        if (!path.isAbsolute()) {
            throw new IllegalArgumentException("candidate path must be absolute: " + path);
        }
    }

    public Candidate(AccessHint hint, Path path, RunEvent.Stream stream, String line) {
        this(hint, path, stream, line, false, Optional.empty(), List.of(), true);
    }

    public Candidate(AccessHint hint, Path path, RunEvent.Stream stream, String line, boolean mustExist,
            Optional<DenialParser.ScriptLine> diedAt) {
        this(hint, path, stream, line, mustExist, diedAt, List.of(), true);
    }

    /** What makes two candidates the same question to the policy. */
    Key key() {
        return new Key(hint, path);
    }

    record Key(AccessHint hint, Path path) {
    }

    /** What of the named path a message is about. */
    enum Target {
        PATH, PARENT, EXISTING
    }
}
