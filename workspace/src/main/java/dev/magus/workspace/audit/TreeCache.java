package dev.magus.workspace.audit;

import dev.magus.workspace.Hashes;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The last walk of a run's descendant trees, kept in the state dir next to the control-file
 * audit's ({@link WalkCache}, whose argument for trusting it holds here unchanged: outside
 * every run's write grant, and a rescan compares directory times with the kept walk's own
 * start, so a file of any age hides nothing). Anything that is not exactly what this version
 * wrote is "no walk": the caller walks the trees whole.
 *
 * <p>Format (version {@value #VERSION}, big-endian): magic, version, key, start time, the
 * directories (parent index, the root's full path or the name in its parent, inode, the count
 * of other names, the names joined by {@code /} (which no name holds), their inodes), CRC32 of
 * all before it; strings are UTF-8 with an int length. Named
 * {@code <hash of key>.tree}; {@link WalkCache}'s pruning of the directory bounds both.
 */
final class TreeCache {
    static final int VERSION = 1;
    static final long MAGIC = 0x4d47534445534354L; // "MGSDESCT"
    static final long MAX_BYTES = 64L << 20;

    private final Path dir;

    TreeCache(Path dir) {
        this.dir = dir;
    }

    static String key(List<Path> roots) {
        StringBuilder b = new StringBuilder("descendants");
        for (Path r : roots) {
            b.append('\0').append(r);
        }
        return b.toString();
    }

    Path file(String key) {
        return dir.resolve(Hashes.of(key) + ".tree");
    }

    Optional<TreeScan.Tree> load(String key, List<Path> roots, long nowNanos) {
        try {
            byte[] all = ChecksummedFile.read(file(key), MAX_BYTES);
            return all == null ? Optional.empty() : Optional.ofNullable(
                    parse(new DataInputStream(new ByteArrayInputStream(all, 0, all.length - 8)), all, key, roots, nowNanos));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static TreeScan.Tree parse(DataInputStream head, byte[] all, String key, List<Path> roots, long nowNanos)
            throws IOException {
        if (head.readLong() != MAGIC || head.readInt() != VERSION || !head.readUTF().equals(key)) {
            return null;
        }
        // The rest through a buffer: tens of thousands of names are read in one pass, no stream per value.
        ByteBuffer in = ByteBuffer.wrap(all, all.length - 8 - head.available(), head.available());
        long since = in.getLong();
        if (since > nowNanos) {
            return null;
        }
        int n = in.getInt();
        if (n < 0 || n > MAX_BYTES / 8) {
            return null;
        }
        List<TreeScan.Dir> dirs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int parent = in.getInt();
            String name = text(in);
            long ino = in.getLong();
            if (parent >= i || parent < -1) {
                return null;
            }
            Path path = dirPath(parent, name, roots, j -> dirs.get(j).path());
            if (path == null) {
                return null;
            }
            int c = in.getInt();
            if (c < 0 || c > MAX_BYTES / 8) {
                return null;
            }
            String[] names = c == 0 ? new String[0] : text(in).split("/", -1);
            if (names.length != c) {
                return null;
            }
            long[] inos = new long[c];
            for (int j = 0; j < c; j++) {
                inos[j] = in.getLong();
                if (!plainName(names[j])) {
                    return null;
                }
            }
            dirs.add(new TreeScan.Dir(path, path.toString(), parent, ino, names, inos));
        }
        return in.hasRemaining() ? null : new TreeScan.Tree(dirs, since);
    }

    /** A length-prefixed UTF-8 string. */
    private static String text(ByteBuffer in) {
        int len = in.getInt();
        if (len < 0 || len > in.remaining()) {
            throw new IllegalArgumentException("truncated");
        }
        String s = new String(in.array(), in.arrayOffset() + in.position(), len, StandardCharsets.UTF_8);
        in.position(in.position() + len);
        return s;
    }

    private static void text(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    /**
     * The path of a kept directory: {@code name} itself when it has no parent and is one of
     * {@code roots}, else the plain {@code name} in its parent's path; null when neither.
     */
    static Path dirPath(int parent, String name, List<Path> roots, java.util.function.IntFunction<Path> parentPath) {
        if (parent < 0) {
            Path path = Path.of(name);
            return roots.contains(path) ? path : null;
        }
        return plainName(name) ? parentPath.apply(parent).resolve(name) : null;
    }

    /** A name a directory can hold: not empty, not {@code .} or {@code ..}, no {@code /} or NUL. */
    static boolean plainName(String name) {
        return !name.isEmpty() && !name.equals(".") && !name.equals("..") && name.indexOf('/') < 0
                && name.indexOf('\0') < 0;
    }

    /** Stores {@code tree} for {@code key}; a failure only costs the next process a full walk. */
    void save(String key, TreeScan.Tree tree) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + tree.dirs().size() * 32 + tree.files() * 24);
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeLong(MAGIC);
            out.writeInt(VERSION);
            out.writeUTF(key);
            out.writeLong(tree.sinceNanos());
            out.writeInt(tree.dirs().size());
            for (TreeScan.Dir d : tree.dirs()) {
                out.writeInt(d.parent());
                text(out, d.parent() < 0 ? d.text() : d.path().getFileName().toString());
                out.writeLong(d.ino());
                out.writeInt(d.names().length);
                if (d.names().length > 0) {
                    // '/' is the one byte no name can hold.
                    text(out, String.join("/", d.names()));
                }
                for (long ino : d.inos()) {
                    out.writeLong(ino);
                }
            }
            out.flush();
            ChecksummedFile.write(dir, file(key), ".tree-", bytes.toByteArray(), MAX_BYTES);
        } catch (IOException | RuntimeException e) {
            // Best effort: without the file the next process walks the trees whole.
        }
    }
}
