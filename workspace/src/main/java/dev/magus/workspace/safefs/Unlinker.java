package dev.magus.workspace.safefs;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * Removes an entry and everything beneath it relative to directories held open
 * ({@link SecureDirectoryStream}: {@code openat(O_NOFOLLOW)}, {@code unlinkat}), never by path:
 * a directory swapped for a link by a concurrent writer between a look and a removal is
 * unlinked, never followed, so nothing outside the directory being removed is touched. Where
 * the platform has no such stream, nothing is removed (an {@link IOException}, so the change
 * is reported as not restored).
 */
public final class Unlinker {
    /** Deeper than this, a tree is not removed: fail, rather than recurse without bound. */
    private static final int MAX_DEPTH = 256;

    private Unlinker() {
    }

    /**
     * Removes {@code path}, opening its parent by path (following links above it); for callers
     * that hold no root beneath which the whole way down is checked.
     */
    public static void remove(Path path) throws IOException {
        Path parent = path.toAbsolutePath().getParent();
        if (parent == null) {
            throw new IOException("no parent: " + path);
        }
        try (SecureDirectoryStream<Path> dir = open(parent)) {
            remove(dir, path.getFileName(), 0);
        }
    }

    /**
     * Removes {@code path}, which lies beneath {@code root}: every directory from {@code root}
     * down to its parent is opened relative to the one above it without following a link, so a
     * directory above it swapped for a link fails the removal instead of leading elsewhere.
     */
    public static void removeBeneath(Path root, Path path) throws IOException {
        try (SecureDirectoryStream<Path> dir = openParentBeneath(root, path)) {
            remove(dir, path.getFileName(), 0);
        }
    }

    /**
     * The parent of {@code path} (beneath {@code root}), opened from {@code root} down one
     * directory at a time without following a link: a directory swapped for a link on the way
     * fails the open ({@code ELOOP}, {@code ENOTDIR}) instead of leading elsewhere.
     */
    public static SecureDirectoryStream<Path> openParentBeneath(Path root, Path path) throws IOException {
        if (!path.startsWith(root) || path.equals(root)) {
            throw new IOException(path + " does not lie beneath " + root);
        }
        Path rel = root.relativize(path);
        SecureDirectoryStream<Path> dir = open(root);
        try {
            for (int i = 0; i < rel.getNameCount() - 1; i++) {
                SecureDirectoryStream<Path> sub = dir.newDirectoryStream(rel.getName(i), LinkOption.NOFOLLOW_LINKS);
                dir.close();
                dir = sub;
            }
            SecureDirectoryStream<Path> out = dir;
            dir = null;
            return out;
        } finally {
            if (dir != null) {
                dir.close();
            }
        }
    }

    /** Removes {@code name} in the open {@code dir}, as {@link #removeBeneath} does. */
    public static void removeIn(SecureDirectoryStream<Path> dir, Path name) throws IOException {
        remove(dir, name, 0);
    }

    private static SecureDirectoryStream<Path> open(Path dir) throws IOException {
        DirectoryStream<Path> s = Files.newDirectoryStream(dir);
        if (s instanceof SecureDirectoryStream<Path> secure) {
            return secure;
        }
        s.close();
        throw new IOException("no directory stream relative to an open directory on this platform, so "
                + dir + " is not touched");
    }

    /** Removes {@code name} in {@code dir}: a directory emptied first, a link unlinked (never followed). */
    private static void remove(SecureDirectoryStream<Path> dir, Path name, int depth) throws IOException {
        BasicFileAttributes attrs;
        try {
            attrs = dir.getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    .readAttributes();
        } catch (NoSuchFileException e) {
            return;
        }
        if (!attrs.isDirectory()) {
            deleteFile(dir, name);
            return;
        }
        if (depth >= MAX_DEPTH) {
            throw new IOException("nested deeper than " + MAX_DEPTH + " directories: " + name);
        }
        SecureDirectoryStream<Path> sub;
        try {
            // O_NOFOLLOW: swapped for a link since the look above, it fails here (ELOOP) and the
            // link itself is unlinked below.
            sub = dir.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return;
        } catch (IOException e) {
            BasicFileAttributes again = dir.getFileAttributeView(name, BasicFileAttributeView.class,
                    LinkOption.NOFOLLOW_LINKS).readAttributes();
            if (again.isDirectory()) {
                throw e;
            }
            deleteFile(dir, name);
            return;
        }
        try (sub) {
            List<Path> names = new ArrayList<>();
            for (Path entry : sub) {
                names.add(entry.getFileName());
            }
            for (Path n : names) {
                remove(sub, n, depth + 1);
            }
        }
        try {
            dir.deleteDirectory(name);
        } catch (NoSuchFileException e) {
            // gone meanwhile
        }
    }

    private static void deleteFile(SecureDirectoryStream<Path> dir, Path name) throws IOException {
        try {
            dir.deleteFile(name);
        } catch (NoSuchFileException e) {
            // gone meanwhile
        }
    }
}
