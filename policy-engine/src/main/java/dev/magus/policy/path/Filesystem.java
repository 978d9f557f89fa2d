package dev.magus.policy.path;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * What building and checking a policy asks of a filesystem, and nothing more: one {@code lstat}
 * (and {@code readlink}) of a path, the first bytes of a small regular file (a git dir's
 * {@code HEAD}, {@code gitdir}, {@code commondir}, {@code config}), and whether the kernel can
 * resolve a whole path itself. The seam lets policies be tested rule by rule against a host
 * described in memory; {@link #real()} is used everywhere else. {@link PathResolver} defines the
 * walk, so an implementation reports single entries and never resolves.
 *
 * <p>Paths are absolute and normalized, every component but the last a directory already
 * examined. Implementations are thread-safe; {@link #lstat} is on every check's hot path and must
 * not allocate for a directory or a file.
 */
public interface Filesystem {

    /** The host's filesystem through {@code java.nio}, with the installed {@link KernelLookup} if any. */
    static Filesystem real() {
        return RealFilesystem.INSTANCE;
    }

    /**
     * What {@code lstat} says about {@code path}, a link's target included; {@link Entry#MISSING}
     * when it does not exist or cannot be examined (no search permission on the way, a
     * component that is not a directory, a link replaced between the two calls).
     */
    Entry lstat(Path path);

    /**
     * Up to {@code maxBytes} of the regular file {@code file}, decoded as UTF-8, without
     * following a link; empty when it is anything else, missing or unreadable.
     */
    Optional<String> read(Path file, int maxBytes);

    /**
     * The lookup that lets the kernel resolve a whole existing path in a few calls, when this
     * filesystem is one the kernel can be asked about; empty otherwise (then every resolution
     * walks). A lookup's answer must agree with the walk over this filesystem.
     */
    default Optional<KernelLookup> kernelLookup() {
        return Optional.empty();
    }

    /**
     * One directory entry as {@code lstat} sees it: its kind, and for a symbolic link the
     * target as written. Directories, files, other files and missing entries are shared
     * constants, so examining one allocates nothing.
     */
    final class Entry {
        /** The kinds the walk and the git-dir search tell apart. */
        public enum Kind {
            DIRECTORY, FILE, LINK,
            /** A device, fifo or socket: it exists, but nothing is beneath it and it holds no text. */
            OTHER,
            /** Not there, or not reachable. */
            MISSING
        }

        public static final Entry DIRECTORY = new Entry(Kind.DIRECTORY, null);
        /** A regular file. */
        public static final Entry FILE = new Entry(Kind.FILE, null);
        public static final Entry OTHER = new Entry(Kind.OTHER, null);
        public static final Entry MISSING = new Entry(Kind.MISSING, null);

        private final Kind kind;
        /** The link's target as written, for a link; null otherwise (read directly by the walk). */
        final String target;

        private Entry(Kind kind, String target) {
            this.kind = kind;
            this.target = target;
        }

        /** A symbolic link to {@code target}, as {@code readlink} gives it (relative or absolute, maybe dangling). */
        public static Entry link(String target) {
            Objects.requireNonNull(target, "target");
            if (target.isEmpty()) {
                throw new IllegalArgumentException("a symbolic link has a target");
            }
            return new Entry(Kind.LINK, target);
        }

        public Kind kind() {
            return kind;
        }

        public boolean exists() {
            return kind != Kind.MISSING;
        }

        /** The target of a link, as written. */
        public Optional<String> linkTarget() {
            return Optional.ofNullable(target);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Entry e && e.kind == kind && Objects.equals(e.target, target);
        }

        @Override
        public int hashCode() {
            return kind.hashCode() * 31 + Objects.hashCode(target);
        }

        @Override
        public String toString() {
            return target == null ? kind.toString() : "LINK -> " + target;
        }
    }
}
