package dev.magus.orchestrator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Removing the directories magus made for one run (a private temp dir, the demo's world). */
public final class Trees {
    private Trees() {
    }

    /**
     * Deletes {@code dir} and everything beneath it, without following links out of it. Best
     * effort: what a confined child left unremovable stays, and holds only that run's files.
     */
    public static void deleteQuietly(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // left behind; see above
                }
            });
        } catch (IOException | UncheckedIOException e) {
            // already gone
        }
    }
}
