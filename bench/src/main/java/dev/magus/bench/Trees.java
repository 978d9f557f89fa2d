package dev.magus.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/** Temp trees for benchmark fixtures: created in {@code @Setup}, removed in {@code @TearDown}. */
public final class Trees {
    private Trees() {
    }

    /** A fresh, real (link-free) temp directory. */
    public static Path tempRoot(String prefix) {
        try {
            return Files.createTempDirectory(prefix).toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static Path file(Path p, String text) {
        try {
            Files.createDirectories(p.getParent());
            return Files.writeString(p, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static Path dirs(Path p) {
        try {
            return Files.createDirectories(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Deletes {@code root} and everything under it, links as links (never what they point at). */
    public static void delete(Path root) {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.delete(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    Files.delete(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
