package dev.magus.workspace.audit;

import dev.magus.workspace.Hashes;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The last walk of each workspace, kept in magus's state dir between processes, so a
 * {@code magus run} rescans instead of walking the workspace whole before its child starts.
 * Trusted because the state dir is outside every run's write grant
 * ({@link dev.magus.workspace.StateDir}); a stale file is still correct because
 * {@link Scan#rescan} compares directory times with the kept walk's own start. A walk that
 * started later than now (the clock set back) is not used, and anything not exactly what this
 * version wrote (see {@link ChecksummedFile}, over {@link #MAX_BYTES}, another key) is "no
 * cache", never "nothing changed". At most {@link #MAX_FILES} files are kept, oldest out first.
 *
 * <p>Format (version {@value #VERSION}, big-endian): magic, version, key, start time, the
 * directories (parent index, the root's full path or the name in its parent, inode, place),
 * the control paths, CRC32 of all before it.
 */
final class WalkCache {
    static final int VERSION = 2;
    static final long MAGIC = 0x4d47534155444954L; // "MGSAUDIT"
    static final long MAX_BYTES = 64L << 20;
    static final int MAX_FILES = 64;

    private final Path dir;

    /** @param dir where the files go: {@code <state dir>/audit} */
    WalkCache(Path dir) {
        this.dir = dir;
    }

    /**
     * What identifies a cache: the roots in their order, the control entries this magus knows,
     * and what the workspace's git configs made control files (a walk kept while they named
     * other paths classified its entries by other rules).
     */
    static String key(List<Path> roots, List<Path> named) {
        StringBuilder b = new StringBuilder(ENTRIES_PART.length() + 64 * roots.size()).append("roots");
        for (Path r : roots) {
            b.append('\0').append(r);
        }
        b.append(ENTRIES_PART);
        for (Path n : named) {
            b.append("\0named\0").append(n);
        }
        return b.toString();
    }

    /**
     * The key's tail: the control entries this magus knows, an immutable list fixed at build
     * time, so written out once rather than on every run.
     */
    private static final String ENTRIES_PART;

    static {
        StringBuilder b = new StringBuilder("\0entries");
        for (String e : dev.magus.policy.control.ControlFiles.entries()) {
            b.append('\0').append(e);
        }
        ENTRIES_PART = b.toString();
    }

    Path file(String key) {
        return dir.resolve(Hashes.of(key) + ".walk");
    }

    /** The walk stored for {@code key}, when there is one this version wrote whole for it. */
    Optional<Scan.Previous> load(String key, List<Path> roots, long nowNanos) {
        try {
            byte[] all = ChecksummedFile.read(file(key), MAX_BYTES);
            return all == null ? Optional.empty() : Optional.ofNullable(
                    parse(new DataInputStream(new ByteArrayInputStream(all, 0, all.length - 8)), key, roots, nowNanos));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static Scan.Previous parse(DataInputStream in, String key, List<Path> roots, long nowNanos)
            throws IOException {
        if (in.readLong() != MAGIC || in.readInt() != VERSION || !in.readUTF().equals(key)) {
            return null;
        }
        long since = in.readLong();
        if (since > nowNanos) {
            return null;
        }
        ControlNames.Place[] places = ControlNames.Place.values();
        int n = in.readInt();
        if (n < 0 || n > MAX_BYTES / 8) {
            return null;
        }
        List<Scan.Dir> dirs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int parent = in.readInt();
            String name = in.readUTF();
            long ino = in.readLong();
            int place = in.readInt();
            if (parent >= i || parent < -1 || place < 0 || place >= places.length) {
                return null;
            }
            Path path = TreeCache.dirPath(parent, name, roots, j -> dirs.get(j).path());
            if (path == null) {
                return null;
            }
            dirs.add(new Scan.Dir(path, path.toString(), parent, ino, places[place]));
        }
        int c = in.readInt();
        if (c < 0 || c > MAX_BYTES / 8) {
            return null;
        }
        Set<Path> controls = new HashSet<>(c * 2);
        for (int i = 0; i < c; i++) {
            String p = in.readUTF();
            Path path = Path.of(p);
            if (!beneath(path, roots)) {
                return null;
            }
            controls.add(path);
        }
        if (in.read() != -1) {
            return null;
        }
        return new Scan.Previous(dirs, controls, since);
    }

    /** Where the files go: one cache per state dir. */
    Path dir() {
        return dir;
    }

    /**
     * Stores {@code walk} for {@code key}; a failure only costs the next process a full walk.
     *
     * @return whether the file now holds {@code walk}
     */
    boolean save(String key, Scan.Walk walk) {
        try {
            if (!walk.unlisted().isEmpty()) {
                // Not kept: the file does not hold what a rescan needs of them. The next process walks.
                Files.deleteIfExists(file(key));
                return false;
            }
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + walk.dirs().size() * 32);
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeLong(MAGIC);
            out.writeInt(VERSION);
            out.writeUTF(key);
            out.writeLong(walk.sinceNanos());
            out.writeInt(walk.dirs().size());
            for (Scan.Dir d : walk.dirs()) {
                out.writeInt(d.parent());
                out.writeUTF(d.parent() < 0 ? d.text() : d.path().getFileName().toString());
                out.writeLong(d.ino());
                out.writeInt(d.place().ordinal());
            }
            out.writeInt(walk.controls().size());
            for (Path p : walk.controls().keySet()) {
                out.writeUTF(p.toString());
            }
            out.flush();
            if (!ChecksummedFile.write(dir, file(key), ".walk-", bytes.toByteArray(), MAX_BYTES)) {
                return false;
            }
            prune();
            return true;
        } catch (IOException | RuntimeException e) {
            // Best effort: without the file the next process walks everything.
            return false;
        }
    }

    Path unauditedFile(String key) {
        return dir.resolve(Hashes.of(key) + ".unaudited");
    }

    /**
     * The directories an earlier run of {@code key}'s workspace left unaudited
     * ({@link ControlFileAudit}): one absolute path a line, each beneath one of {@code roots}.
     * A file that cannot be read is no memory (nothing to add); one with a line that is not such
     * a path is ignored whole. Only magus writes it: the state dir is outside every grant.
     */
    Set<Path> loadUnaudited(String key, List<Path> roots) {
        Path f = unauditedFile(key);
        // Usually there is none: access(2) says so without the exceptions of a missing file's
        // lstat below, which still judges a link or a file access(2) cannot tell.
        if (!Files.exists(f)) {
            return Set.of();
        }
        try {
            if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS) || Files.size(f) > MAX_BYTES) {
                return Set.of();
            }
            List<String> lines = Files.readAllLines(f, java.nio.charset.StandardCharsets.UTF_8);
            if (lines.isEmpty() || !lines.get(0).equals(key.replace('\0', '\t'))) {
                return Set.of();
            }
            Set<Path> out = new HashSet<>();
            for (String line : lines.subList(1, lines.size())) {
                Path p = Path.of(line);
                if (!beneath(p, roots)) {
                    return Set.of();
                }
                out.add(p);
            }
            return out;
        } catch (IOException | RuntimeException e) {
            return Set.of();
        }
    }

    /** Keeps {@code dirs} for {@code key}'s next run; none: the file is removed. Best effort. */
    void saveUnaudited(String key, List<Path> dirs) {
        Path target = unauditedFile(key);
        try {
            if (dirs.isEmpty()) {
                // Usually there is none: access(2) says so without the exceptions of deleteIfExists's
                // lstat of a missing file (every run saves an empty list). A dangling link
                // left so is read as no memory (loadUnaudited), and a later save renames over it.
                if (Files.exists(target)) {
                    Files.deleteIfExists(target);
                }
                return;
            }
            StringBuilder b = new StringBuilder(key.replace('\0', '\t')).append('\n');
            for (Path d : dirs) {
                b.append(d).append('\n');
            }
            Files.createDirectories(dir);
            Path temp = Files.createTempFile(dir, ".unaudited-", ".tmp");
            try {
                Files.writeString(temp, b, java.nio.charset.StandardCharsets.UTF_8);
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(temp);
            }
        } catch (IOException | RuntimeException e) {
            // Best effort: this process still remembers them.
        }
    }

    /** Whether {@code p} is absolute, normal and beneath one of {@code roots}. */
    private static boolean beneath(Path p, List<Path> roots) {
        return p.isAbsolute() && p.normalize().equals(p) && roots.stream().anyMatch(p::startsWith);
    }

    /** Deletes the least recently written files beyond {@link #MAX_FILES}, and stray temporary files. */
    private void prune() throws IOException {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                files.add(p);
            }
        }
        if (files.size() <= MAX_FILES) {
            return;
        }
        files.sort((a, b) -> modified(a).compareTo(modified(b)));
        for (int i = 0; i < files.size() - MAX_FILES; i++) {
            Files.deleteIfExists(files.get(i));
        }
    }

    private static FileTime modified(Path p) {
        try {
            return Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            return FileTime.fromMillis(0);
        }
    }
}
