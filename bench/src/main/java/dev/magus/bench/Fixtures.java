package dev.magus.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Temp trees for benchmark fixtures: created in {@code @Setup}, removed in {@code @TearDown}. */
public final class Fixtures {
    private Fixtures() {
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

    /**
     * Deletes {@code root} and everything under it, links as links: the one tree removal magus
     * has ({@link dev.magus.orchestrator.temp.Trees#deleteQuietly}, exported API).
     */
    public static void delete(Path root) {
        if (root != null) {
            dev.magus.orchestrator.temp.Trees.deleteQuietly(root);
        }
    }
}
