package dev.magus.orchestrator;

import dev.magus.orchestrator.orphans.ProcessIdentity;
import dev.magus.orchestrator.orphans.StaleTemps;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Making and removing the directories magus makes for one run (a private temp dir, the demo's world). */
public final class Trees {
    /**
     * How every run's private temp dir under the temp base is named: this, then the identity of
     * the magus that made it ({@link ProcessIdentity#token()}, when {@code /proc} can say), then
     * a random part. The identity lets a later magus remove the dir of one that was killed
     * before it could ({@link StaleTemps}).
     */
    public static final String PRIVATE_TEMP_PREFIX = "magus-run-";

    private Trees() {
    }

    /**
     * A new private temp dir for one run under {@code tempBase} (created if missing), by its
     * real path. createTempDirectory makes it 0700 on POSIX: other users cannot enter it.
     */
    public static Path createPrivateTemp(Path tempBase) throws IOException {
        Files.createDirectories(tempBase);
        String prefix = PRIVATE_TEMP_PREFIX + ProcessIdentity.self().map(i -> i.token() + "-").orElse("");
        return Files.createTempDirectory(tempBase, prefix).toRealPath();
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
