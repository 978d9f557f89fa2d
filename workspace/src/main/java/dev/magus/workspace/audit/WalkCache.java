package dev.magus.workspace.audit;

import dev.magus.workspace.Hashes;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.zip.CRC32;

/**
 * The last walk of each workspace, kept in magus's state dir between processes, so that every
 * {@code magus run} from the command line rescans (one {@code lstat} per directory) instead of
 * walking the workspace whole before its child starts.
 *
 * <p>Why it may be trusted: the state dir is outside every run's write grant (see
 * {@link dev.magus.workspace.StateDir}), so a confined child cannot write it; what writes it
 * otherwise is the user's own unconfined processes, which could as well write the control files
 * themselves. Why a stale file is still correct: {@link Scan#rescan} lists again every directory
 * whose mtime or ctime is not older than the moment the cached walk <em>started</em> (less the
 * slack), or whose inode changed, however long ago that was; a name created while no magus was
 * running set its directory's times after that moment. So a file of any age hides nothing.
 * A file whose walk started later than now (the clock was set back since) is not used.
 *
 * <p>Anything else that is not exactly what this version wrote (missing, unreadable, another
 * version, another workspace or list of control entries, truncated, a checksum that does not
 * match, an index out of order, bigger than {@link #MAX_BYTES}) is "no cache": the caller
 * walks everything. Never "nothing changed".
 *
 * <p>Written to a temporary name and renamed over the old one, so a reader sees a whole file or
 * the previous one; not synced: after a crash a torn file fails its checksum. At most
 * {@link #MAX_FILES} files are kept; the least recently written go first.
 *
 * <p>Format (version {@value #VERSION}, big-endian): magic, version, key, start time, the
 * directories (parent index, then the root's full path or the name in its parent, inode,
 * place), the control paths (index of the directory, name), CRC32 of all before it.
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

    /** What identifies a cache: the roots in their order and the control entries this magus knows. */
    static String key(List<Path> roots) {
        return key(roots, List.of());
    }

    /**
     * The key, also naming what the workspace's git configs made control files: a walk kept
     * while they named other paths classified its entries by other rules.
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
        Path f = file(key);
        try (InputStream raw = Files.newInputStream(f, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            long size = Files.size(f);
            if (size < 8 || size > MAX_BYTES) {
                return Optional.empty();
            }
            byte[] all = raw.readNBytes((int) size + 1);
            if (all.length != size) {
                return Optional.empty();
            }
            CRC32 crc = new CRC32();
            crc.update(all, 0, all.length - 8);
            DataInputStream tail = new DataInputStream(new java.io.ByteArrayInputStream(all, all.length - 8, 8));
            if (tail.readLong() != crc.getValue()) {
                return Optional.empty();
            }
            return Optional.ofNullable(parse(new DataInputStream(
                    new java.io.ByteArrayInputStream(all, 0, all.length - 8)), key, roots, nowNanos));
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
            Path path;
            if (parent < 0) {
                path = Path.of(name);
                if (!roots.contains(path)) {
                    return null;
                }
            } else {
                if (name.isEmpty() || name.equals(".") || name.equals("..") || name.indexOf('/') >= 0
                        || name.indexOf('\0') >= 0) {
                    return null;
                }
                path = dirs.get(parent).path().resolve(name);
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
            if (!path.isAbsolute() || !path.normalize().equals(path) || roots.stream().noneMatch(path::startsWith)) {
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
            if (bytes.size() + 8 > MAX_BYTES) {
                Files.deleteIfExists(file(key));
                return false;
            }
            CRC32 crc = new CRC32();
            byte[] body = bytes.toByteArray();
            crc.update(body);
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir);
            }
            Path target = file(key);
            Path temp = Files.createTempFile(dir, ".walk-", ".tmp");
            try {
                try (OutputStream o = new BufferedOutputStream(Files.newOutputStream(temp, StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING, LinkOption.NOFOLLOW_LINKS))) {
                    o.write(body);
                    new DataOutputStream(o).writeLong(crc.getValue());
                }
                try {
                    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    return false;
                }
            } finally {
                Files.deleteIfExists(temp);
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
        // Usually there is none: access(2) says so without the two exceptions of a missing file's
        // lstat below. A link, or one it cannot tell, is looked at below as before.
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
                if (!p.isAbsolute() || !p.normalize().equals(p) || roots.stream().noneMatch(p::startsWith)) {
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
