package dev.magus.workspace.audit;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One entry a run wrote inside a descendant project's tree: a file, link or directory that
 * appeared, changed or went away.
 *
 * @param path    where, absolute
 * @param project the descendant project it is in (the deepest one), absolute
 * @param verb    what happened to it
 */
public record DescendantWrite(Path path, Path project, Verb verb) {
    public DescendantWrite {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(project, "project");
        Objects.requireNonNull(verb, "verb");
    }

    /** What happened to an entry. */
    public enum Verb {
        CREATED, CHANGED, REMOVED;

        public String word() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }
}
