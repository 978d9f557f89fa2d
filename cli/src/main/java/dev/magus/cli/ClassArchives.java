package dev.magus.cli;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Optional;

/**
 * Drops the class archives bin/magus keeps beside {@code cli.jar} ({@code magus-KIND-PID.jsa},
 * made with {@code -XX:ArchiveClassesAtExit}) that the JDK running now can no longer map. A dynamic archive is tied to the JDK's runtime image and base archive; the JVM refuses a
 * stale one quietly ({@code -Xshare:auto}). A package manager keeps the files' modification
 * times, so the change shows in their {@code ctime}, which nothing can set back: an archive older
 * than the newest {@code ctime} among the JDK's image and VM files is deleted (a false alarm costs
 * one remake). Deleting a mapped file is harmless on Linux.
 *
 * <p>A run that ended before its child started marks its archive thin
 * ({@code magus-KIND-PID.jsa.thin}): it lacks the spawn's classes. bin/magus passes over it (at
 * most three thin ones, then it maps one), and it is dropped here with its mark once an unmarked
 * one of its kind exists.
 */
final class ClassArchives {
    /** The suffix of the mark a run that started no child leaves beside the archive it makes. */
    static final String THIN = ".thin";

    /** Whether this process started a child (a run or target's child): its archive is not thin. */
    private static volatile boolean childStarted;
    /** The JDK's files a dynamic archive depends on, under {@code java.home}. */
    private static final List<String> JDK_FILES = List.of(
            "lib/modules",
            "lib/server/libjvm.so", "lib/server/classes.jsa", "lib/server/classes_nocoops.jsa",
            "lib/client/libjvm.so", "lib/client/classes.jsa");

    private ClassArchives() {
    }

    /**
     * From {@code bin/magus}'s properties: the archives under {@code magus.home}'s
     * {@code cli/target} against {@code java.home}. Never fails: a file that cannot be read or
     * deleted stays as it is (a slower start, nothing else).
     */
    static void dropStale() {
        String home = System.getProperty("magus.home");
        String java = System.getProperty("java.home");
        if (home == null || java == null) {
            return;
        }
        dropStale(Path.of(home, "cli", "target"), Path.of(java));
    }

    /** Said by a run once its child started: the archive this process makes (if any) holds the run's classes. */
    static void childStarted() {
        childStarted = true;
    }

    /**
     * At the end of a command line: when bin/magus asked this process to make an archive
     * ({@code magus.archive}, its path) and no child started, the archive is marked thin.
     */
    static void markIfThin() {
        String archive = System.getProperty("magus.archive");
        if (archive != null && !childStarted) {
            markThin(Path.of(archive));
        }
    }

    /** Leaves the thin mark beside {@code archive}; never fails (an unmarked archive is only a slower start). */
    static void markThin(Path archive) {
        try {
            Files.createFile(archive.resolveSibling(archive.getFileName() + THIN));
        } catch (FileAlreadyExistsException e) {
            // Marked already.
        } catch (IOException | RuntimeException e) {
            // A read-only install: bin/magus makes no archive there either.
        }
    }

    /**
     * Deletes the {@code magus-*.jsa} in {@code dir} older than the newest change to the JDK at
     * {@code javaHome}, and those marked thin once an unmarked one of their kind exists (a thin
     * one is kept until then: bin/magus maps it rather than none once it has made a few, see
     * bin/magus); a mark whose archive never came is deleted after {@link #ORPHAN_MARK}. Returns
     * how many archives.
     */
    static int dropStale(Path dir, Path javaHome) {
        Optional<FileTime> changed = jdkChanged(javaHome);
        List<Path> marks = new java.util.ArrayList<>();
        java.util.Set<String> fullKinds = new java.util.HashSet<>();
        int dropped = 0;
        try (DirectoryStream<Path> archives = Files.newDirectoryStream(dir)) {
            for (Path archive : archives) {
                String name = archive.getFileName().toString();
                if (name.endsWith(THIN) && isArchiveName(name.substring(0, name.length() - THIN.length()))) {
                    marks.add(archive);
                    continue;
                }
                if (!isArchiveName(name)) {
                    continue;
                }
                try {
                    BasicFileAttributes a = Files.readAttributes(archive, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                    // Only a regular file: a link or a directory under an archive's name is not bin/magus's.
                    if (!a.isRegularFile()) {
                        continue;
                    }
                    if (changed.isPresent() && stale(a.lastModifiedTime(), changed.get())) {
                        if (Files.deleteIfExists(archive)) {
                            dropped++;
                        }
                    } else if (!Files.exists(archive.resolveSibling(name + THIN), LinkOption.NOFOLLOW_LINKS)) {
                        fullKinds.add(kind(name));
                    }
                } catch (IOException | RuntimeException e) {
                    // Unreadable or not ours to delete (a read-only install): left as it is.
                }
            }
        } catch (IOException | RuntimeException e) {
            // No such directory (not a built checkout): nothing to drop.
            return dropped;
        }
        for (Path mark : marks) {
            String name = mark.getFileName().toString();
            Path archive = mark.resolveSibling(name.substring(0, name.length() - THIN.length()));
            dropped += dropThin(archive, mark, fullKinds.contains(kind(archive.getFileName().toString())));
        }
        return dropped;
    }

    /** How long a thin mark may wait for its archive: the JVM that left it dumps the archive as it exits, after the mark. */
    static final java.time.Duration ORPHAN_MARK = java.time.Duration.ofMinutes(10);

    /**
     * A thin archive and its mark, deleted when {@code replaced} (an unmarked archive of its kind
     * is there); a mark alone once it is older than {@link #ORPHAN_MARK}. 1 when the archive was
     * deleted.
     */
    private static int dropThin(Path archive, Path mark, boolean replaced) {
        try {
            if (!Files.exists(archive, LinkOption.NOFOLLOW_LINKS)) {
                FileTime made = Files.getLastModifiedTime(mark, LinkOption.NOFOLLOW_LINKS);
                if (made.toInstant().plus(ORPHAN_MARK).isBefore(java.time.Instant.now())) {
                    Files.deleteIfExists(mark);
                }
                return 0;
            }
            if (replaced && Files.isRegularFile(archive, LinkOption.NOFOLLOW_LINKS) && Files.deleteIfExists(archive)) {
                Files.deleteIfExists(mark);
                return 1;
            }
        } catch (IOException | RuntimeException e) {
            // Not ours to delete: left, and bin/magus still passes over the marked archive.
        }
        return 0;
    }

    /** {@code magus-KIND-} of an archive's name. */
    private static String kind(String archiveName) {
        return archiveName.substring(0, archiveName.indexOf('-', "magus-".length()) + 1);
    }

    /** Whether {@code name} is one bin/magus gives an archive: {@code magus-KIND-PID.jsa}, KIND one of full, ws, fast. */
    static boolean isArchiveName(String name) {
        for (String kind : new String[] {"magus-full-", "magus-ws-", "magus-fast-"}) {
            String ext = name.endsWith(".jsa") ? ".jsa" : name.endsWith(".aot") ? ".aot" : null;
            if (name.startsWith(kind) && ext != null) {
                String pid = name.substring(kind.length(), name.length() - ext.length());
                return !pid.isEmpty() && pid.length() <= 10 && pid.chars().allMatch(c -> c >= '0' && c <= '9');
            }
        }
        return false;
    }

    /** Whether an archive made at {@code made} predates the JDK's last change at {@code jdkChanged}. */
    static boolean stale(FileTime made, FileTime jdkChanged) {
        return made.compareTo(jdkChanged) < 0;
    }

    /** The newest status-change time among the JDK's files that exist; empty when none can be read. */
    static Optional<FileTime> jdkChanged(Path javaHome) {
        FileTime newest = null;
        for (String file : JDK_FILES) {
            try {
                FileTime t = (FileTime) Files.getAttribute(javaHome.resolve(file), "unix:ctime");
                if (newest == null || t.compareTo(newest) > 0) {
                    newest = t;
                }
            } catch (IOException | RuntimeException e) {
                // Not in this JDK (no client VM, no compressed-oops-less archive): skipped.
            }
        }
        return Optional.ofNullable(newest);
    }
}
