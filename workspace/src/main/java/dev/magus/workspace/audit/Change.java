package dev.magus.workspace.audit;

import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * One control entry a run created, changed or removed.
 *
 * <p>{@code entry} is the control-file entry it falls under, as {@code magus policy} lists
 * them ({@code .git/hooks/}, {@code magus.yaml}). {@code beneath} counts the entries folded
 * into a directory that was created, removed, or replaced by something else (or that replaced
 * something else): one diagnostic for a removed {@code .git/hooks/}, not one per sample hook.
 */
public sealed interface Change {
    Path path();

    String entry();

    /** What about an entry that exists before and after differs. */
    enum Aspect {
        /** file, directory, link or special file. */
        TYPE,
        CONTENT,
        MODE,
        /** where a link points. */
        LINK,
        /**
         * what a control link resolves to: another file, or the content or mode of the
         * regular file it leads to.
         */
        TARGET;

        public String word() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Absent before the run, present after. */
    record Created(Path path, String entry, Node now, int beneath) implements Change {
        public Created {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(entry, "entry");
            Objects.requireNonNull(now, "now");
        }
    }

    /** Present before the run, absent after. */
    record Removed(Path path, String entry, Node was, int beneath) implements Change {
        public Removed {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(entry, "entry");
            Objects.requireNonNull(was, "was");
        }
    }

    /** Present before and after, different. */
    record Changed(Path path, String entry, Node was, Node now, Set<Aspect> aspects, int beneath) implements Change {
        public Changed {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(entry, "entry");
            Objects.requireNonNull(was, "was");
            Objects.requireNonNull(now, "now");
            aspects = Set.copyOf(aspects.isEmpty() ? EnumSet.noneOf(Aspect.class) : EnumSet.copyOf(aspects));
            if (aspects.isEmpty()) {
                throw new IllegalArgumentException("a change changes something: " + path);
            }
        }
    }

    /** How many entries beneath this one were folded into it. */
    int beneath();

    /** {@code created}, {@code changed} or {@code removed}. */
    default String verb() {
        if (this instanceof Created) {
            return "created";
        }
        if (this instanceof Removed) {
            return "removed";
        }
        return "changed";
    }
}
