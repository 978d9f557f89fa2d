package dev.magus.orchestrator.temp;

import dev.magus.orchestrator.orphans.ProcessIdentity;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

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
        // What createDirectories accepts (a directory, or a link to one), looked at first: its
        // mkdir's EEXIST would be an exception on every run.
        if (!Files.isDirectory(tempBase)) {
            Files.createDirectories(tempBase);
        }
        String prefix = PRIVATE_TEMP_PREFIX + ProcessIdentity.self().map(i -> i.token() + "-").orElse("");
        return Files.createTempDirectory(tempBase, prefix).toRealPath();
    }

    /**
     * Deletes {@code dir} and everything beneath it, without following links out of it. Best
     * effort: what a confined child left unremovable stays, and holds only that run's files.
     *
     * <p>Every removal is made relative to an open descriptor of its own directory
     * ({@link SecureDirectoryStream}: {@code openat(O_NOFOLLOW)}, {@code unlinkat}), never by a
     * path name. magus runs this unconfined, after the child, and a descendant of the child that
     * outlived its group could swap a directory inside the tree for a link to {@code ~} while
     * the removal walks it; a removal by path would then delete the user's files through that
     * link. Relative to a descriptor, a swapped-in link is only a link, and is removed as one.
     * Where the platform has no secure directory stream, nothing beneath {@code dir} is removed
     * by path either: the tree is left for the stale-temp sweep rather than risk it.
     */
    public static void deleteQuietly(Path dir) {
        try (DirectoryStream<Path> top = Files.newDirectoryStream(dir)) {
            if (top instanceof SecureDirectoryStream<Path> secure) {
                empty(secure, 0);
            } else {
                return;
            }
        } catch (IOException | UncheckedIOException e) {
            // gone already, or not a directory we can open: nothing to remove beneath it
        }
        try {
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            // left behind; see above
        }
    }

    /** Deeper than this, a tree is left for the stale-temp sweep: no run's temp files nest so deep. */
    private static final int MAX_DEPTH = 512;

    private static void empty(SecureDirectoryStream<Path> dir, int depth) throws IOException {
        List<Path> names = new ArrayList<>();
        for (Path entry : dir) {
            names.add(entry.getFileName());
        }
        for (Path name : names) {
            BasicFileAttributes attrs;
            try {
                attrs = dir.getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                        .readAttributes();
            } catch (IOException e) {
                continue;
            }
            try {
                if (attrs.isDirectory() && depth < MAX_DEPTH) {
                    try (SecureDirectoryStream<Path> sub = dir.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS)) {
                        empty(sub, depth + 1);
                    }
                    dir.deleteDirectory(name);
                } else if (!attrs.isDirectory()) {
                    dir.deleteFile(name);
                }
            } catch (IOException e) {
                // left behind (swapped meanwhile, or unremovable); never followed
            }
        }
    }
}
