package dev.magus.workspace.audit;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * What one control entry was at one moment: enough to tell a change and to put it back.
 * Ownership and times are not compared: a tool that rewrites a file with the same bytes has
 * not changed what the next tool obeys.
 *
 * <p>The records' equals and hashCode are written out, component by component as a record's
 * own: those are linked at their first call ({@code ObjectMethods} bootstrap, method-handle
 * classes spun at run time), a cost every one-shot run paid in its audit.
 */
public sealed interface Node {

    /** A regular file: its permission bits and content. */
    record File(int permissions, Content content) implements Node {
        public File {
            Objects.requireNonNull(content, "content");
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof File f && permissions == f.permissions && content.equals(f.content);
        }

        @Override
        public int hashCode() {
            return 31 * permissions + content.hashCode();
        }
    }

    /** A directory: its permission bits (what is beneath it are entries of their own). */
    record Directory(int permissions) implements Node {
        @Override
        public boolean equals(Object o) {
            return o instanceof Directory d && permissions == d.permissions;
        }

        @Override
        public int hashCode() {
            return permissions;
        }
    }

    /**
     * A symbolic link: its target as written, and, when it resolves to a regular file, that
     * file as it was. The link itself is never followed to be written; it is followed to be
     * read because the tool that obeys the control name reads through it (direnv reads
     * {@code .envrc -> envrc.real}), so a child that edits the file it leads to has changed
     * what the control name says.
     */
    record Link(String target, Optional<Resolved> resolved) implements Node {
        public Link {
            Objects.requireNonNull(target, "target");
            Objects.requireNonNull(resolved, "resolved");
        }

        /** A link whose target is not recorded (dangling, not a regular file, unreadable). */
        public Link(String target) {
            this(target, Optional.empty());
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Link l && target.equals(l.target) && resolved.equals(l.resolved);
        }

        @Override
        public int hashCode() {
            return 31 * target.hashCode() + resolved.hashCode();
        }
    }

    /**
     * The regular file a control link resolved to: its path with every link resolved, its
     * permission bits and content.
     */
    record Resolved(Path path, int permissions, Content content) {
        public Resolved {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(content, "content");
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Resolved r && path.equals(r.path) && permissions == r.permissions && content.equals(r.content);
        }

        @Override
        public int hashCode() {
            return (31 * path.hashCode() + permissions) * 31 + content.hashCode();
        }
    }

    /** A fifo, socket or device: told apart by its mode; the audit cannot make one again. */
    record Other(int mode) implements Node {
        @Override
        public boolean equals(Object o) {
            return o instanceof Other other && mode == other.mode;
        }

        @Override
        public int hashCode() {
            return mode;
        }
    }

    /** A word for the kind, as diagnostics say it. */
    default String kind() {
        if (this instanceof File) {
            return "file";
        }
        if (this instanceof Directory) {
            return "directory";
        }
        if (this instanceof Link) {
            return "symbolic link";
        }
        return "special file";
    }

    /**
     * A file's bytes, compared by size and SHA-256. The bytes themselves are kept up to
     * {@link #KEEP_LIMIT} so that the file can be written back. A larger control file is never
     * read at all (no control file of any tool is that large, a child may leave a sparse
     * {@code truncate -s 100G magus.yaml}, and a copy kept on disk would sit where the next
     * child could reach it): it is compared by its size and its identity, device, inode,
     * mtime and ctime ({@link #unread}), which any write changes (ctime cannot be set back), so
     * an oversized file the run created or wrote is a change, put back or removed as any other,
     * and one nobody touched is none (unless it was changed within a clock tick or so of being
     * recorded: then it counts as changed); one oversized before the run cannot be restored.
     */
    final class Content {
        public static final int KEEP_LIMIT = 4 * 1024 * 1024;

        private final long size;
        private final String sha256;
        private final byte[] bytes;
        /** For a file not read: dev, ino, mtime, ctime; null for one read. */
        private final long[] identity;

        private Content(long size, String sha256, byte[] bytes, long[] identity) {
            this.size = size;
            this.sha256 = sha256;
            this.bytes = bytes;
            this.identity = identity;
        }

        public static Content of(byte[] bytes) {
            if (bytes.length > KEEP_LIMIT) {
                return new Content(bytes.length, digest(bytes), null, null);
            }
            return new Content(bytes.length, digest(bytes), bytes.clone(), null);
        }

        /**
         * A file larger than {@link #KEEP_LIMIT}, not read: equal only to the same size and
         * identity. {@code ino} 0 is an identity nothing equals (unknown).
         */
        public static Content unread(long size, long dev, long ino, long mtimeNanos, long ctimeNanos) {
            return new Content(size, "", null, new long[] {dev, ino, mtimeNanos, ctimeNanos});
        }

        public long size() {
            return size;
        }

        /** The SHA-256 in hex; empty for a file {@link #unread}. */
        public String sha256() {
            return sha256;
        }

        /** Whether the file was too large to be read ({@link #unread}). */
        public boolean read() {
            return identity == null;
        }

        /** The bytes, when they were small enough to keep. */
        public Optional<byte[]> bytes() {
            return Optional.ofNullable(bytes).map(byte[]::clone);
        }

        private static String digest(byte[] bytes) {
            try {
                return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every JDK has SHA-256", e);
            }
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Content c) || c.size != size) {
                return false;
            }
            if (identity != null || c.identity != null) {
                return identity != null && c.identity != null && identity[1] != 0 && Arrays.equals(identity, c.identity);
            }
            return c.sha256.equals(sha256);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(size);
        }

        @Override
        public String toString() {
            return identity != null ? size + " bytes, not read (larger than " + KEEP_LIMIT + ")"
                    : size + " bytes, sha256 " + sha256.substring(0, 12);
        }
    }
}
