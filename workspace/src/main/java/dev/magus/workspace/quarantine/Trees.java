package dev.magus.workspace.quarantine;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * Copies and removes a file, link or directory tree exactly, never following a link: a link
 * is copied as a link, a file byte for byte with its mode (set-id and sticky bits included),
 * a directory with its mode, set once what is beneath it is written. Paths are taken as
 * given: the caller checks that no directory above them is a link.
 */
final class Trees {
    private Trees() {
    }

    /** Deeper than this, a tree is not copied or removed: fail, rather than recurse without bound. */
    private static final int MAX_DEPTH = 256;

    /**
     * Copies {@code from} to {@code to}, which must not exist; returns the bytes of the files
     * copied. A directory or file its owner cannot read (a child's {@code chmod 000}) is made
     * readable for the copy and given its mode back; a fifo or socket holds nothing to keep and
     * is left out.
     */
    static long copy(Path from, Path to) throws IOException {
        return copy(from, to, 0);
    }

    private static long copy(Path from, Path to, int depth) throws IOException {
        if (depth > MAX_DEPTH) {
            throw new IOException("nested deeper than " + MAX_DEPTH + " directories: " + from);
        }
        BasicFileAttributes a = Files.readAttributes(from, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (a.isSymbolicLink()) {
            Files.createSymbolicLink(to, Files.readSymbolicLink(from));
            return 0;
        }
        if (a.isDirectory()) {
            int mode = Fingerprint.mode(from);
            boolean opened = (mode & 0500) != 0500;
            if (opened) {
                Files.setAttribute(from, "unix:mode", mode | 0500, LinkOption.NOFOLLOW_LINKS);
            }
            long bytes = 0;
            try {
                Files.createDirectory(to);
                List<Path> names = new ArrayList<>();
                try (DirectoryStream<Path> s = Files.newDirectoryStream(from)) {
                    for (Path p : s) {
                        names.add(p.getFileName());
                    }
                }
                for (Path n : names) {
                    bytes += copy(from.resolve(n), to.resolve(n.toString()), depth + 1);
                }
                Files.setAttribute(to, "unix:mode", mode, LinkOption.NOFOLLOW_LINKS);
            } finally {
                if (opened) {
                    Files.setAttribute(from, "unix:mode", mode, LinkOption.NOFOLLOW_LINKS);
                }
            }
            return bytes;
        }
        if (a.isRegularFile()) {
            int mode = Fingerprint.mode(from);
            boolean opened = (mode & 0400) == 0;
            if (opened) {
                Files.setAttribute(from, "unix:mode", mode | 0400, LinkOption.NOFOLLOW_LINKS);
            }
            try {
                Files.copy(from, to, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
                Files.setAttribute(to, "unix:mode", mode, LinkOption.NOFOLLOW_LINKS);
            } finally {
                if (opened) {
                    Files.setAttribute(from, "unix:mode", mode, LinkOption.NOFOLLOW_LINKS);
                }
            }
            return a.size();
        }
        return 0;
    }

    /** The bytes of the files beneath {@code path} (or of the file). */
    static long size(Path path) throws IOException {
        long[] bytes = {0};
        Files.walkFileTree(path, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                bytes[0] += attrs.isRegularFile() ? attrs.size() : 0;
                return FileVisitResult.CONTINUE;
            }
        });
        return bytes[0];
    }

    /** Removes {@code path} and everything beneath it; a link is removed, never followed. */
    static void remove(Path path) throws IOException {
        remove(path, 0);
    }

    private static void remove(Path path, int depth) throws IOException {
        if (depth > MAX_DEPTH) {
            throw new IOException("nested deeper than " + MAX_DEPTH + " directories: " + path);
        }
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return;
        }
        if (a.isDirectory()) {
            // A directory without read, write or search permission cannot be emptied otherwise.
            Files.setAttribute(path, "unix:mode", 0700, LinkOption.NOFOLLOW_LINKS);
            List<Path> names = new ArrayList<>();
            try (DirectoryStream<Path> s = Files.newDirectoryStream(path)) {
                for (Path p : s) {
                    names.add(p.getFileName());
                }
            }
            for (Path n : names) {
                remove(path.resolve(n), depth + 1);
            }
        }
        Files.deleteIfExists(path);
    }
}
