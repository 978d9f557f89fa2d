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
 */
public sealed interface Node {

    /** A regular file: its permission bits and content. */
    record File(int permissions, Content content) implements Node {
        public File {
            Objects.requireNonNull(content, "content");
        }
    }

    /** A directory: its permission bits (what is beneath it are entries of their own). */
    record Directory(int permissions) implements Node {
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
    }

    /** A fifo, socket or device: told apart by its mode; the audit cannot make one again. */
    record Other(int mode) implements Node {
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
     * {@link #KEEP_LIMIT} so that the file can be written back; a larger control file is
     * compared but cannot be restored (no control file of any tool is that large, and a copy
     * kept on disk would sit where the next child could reach it).
     */
    final class Content {
        public static final int KEEP_LIMIT = 4 * 1024 * 1024;

        private final long size;
        private final String sha256;
        private final byte[] bytes;

        private Content(long size, String sha256, byte[] bytes) {
            this.size = size;
            this.sha256 = sha256;
            this.bytes = bytes;
        }

        public static Content of(byte[] bytes) {
            return new Content(bytes.length, digest(bytes), bytes.length <= KEEP_LIMIT ? bytes.clone() : null);
        }

        public long size() {
            return size;
        }

        public String sha256() {
            return sha256;
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
            return o instanceof Content c && c.size == size && c.sha256.equals(sha256);
        }

        @Override
        public int hashCode() {
            return sha256.hashCode();
        }

        @Override
        public String toString() {
            return size + " bytes, sha256 " + sha256.substring(0, 12);
        }

        /** For tests: the same bytes. */
        boolean sameBytes(byte[] other) {
            return bytes != null && Arrays.equals(bytes, other);
        }
    }
}
