package dev.magus.workspace.quarantine;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Copies and removes a file, link or directory tree exactly, never following a link: a link
 * is copied as a link, a file byte for byte with its mode (set-id and sticky bits included),
 * a directory with its mode, set once what is beneath it is written.
 */
final class Trees {
    private Trees() {
    }

    /** Copies {@code from} to {@code to}, which must not exist; returns the bytes of the files copied. */
    static long copy(Path from, Path to) throws IOException {
        long[] bytes = {0};
        Deque<int[]> modes = new ArrayDeque<>();
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                Path d = to.resolve(from.relativize(dir).toString());
                Files.createDirectory(d);
                modes.push(new int[] {Fingerprint.mode(dir)});
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Path f = from.equals(file) ? to : to.resolve(from.relativize(file).toString());
                if (attrs.isSymbolicLink()) {
                    Files.createSymbolicLink(f, Files.readSymbolicLink(file));
                } else if (attrs.isRegularFile()) {
                    Files.copy(file, f, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
                    Files.setAttribute(f, "unix:mode", Fingerprint.mode(file), LinkOption.NOFOLLOW_LINKS);
                    bytes[0] += attrs.size();
                } else {
                    throw new IOException("a special file cannot be kept: " + file);
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                if (e != null) {
                    throw e;
                }
                Path d = to.resolve(from.relativize(dir).toString());
                Files.setAttribute(d, "unix:mode", modes.pop()[0], LinkOption.NOFOLLOW_LINKS);
                return FileVisitResult.CONTINUE;
            }
        });
        return bytes[0];
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
        try {
            Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return;
        }
        Files.walkFileTree(path, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                // A directory without write or search permission cannot be emptied otherwise.
                Files.setAttribute(dir, "unix:mode", 0700, LinkOption.NOFOLLOW_LINKS);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                if (e != null) {
                    throw e;
                }
                Files.delete(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
