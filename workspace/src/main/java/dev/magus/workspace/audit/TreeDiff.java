package dev.magus.workspace.audit;

import dev.magus.policy.path.DirectoryReader.Stamp;
import dev.magus.workspace.audit.DescendantWrite.Verb;
import dev.magus.workspace.audit.TreeScan.Dir;
import dev.magus.workspace.audit.TreeScan.Tree;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * What a run wrote in the trees, from their names before and after it and each file's own
 * stamp after it. No filesystem: the stamps come through a function.
 *
 * <p>A name that appeared or went away is created or removed; a directory too, with every
 * name beneath it. A name whose inode changed was replaced (a formatter's write-beside and
 * rename): changed. A name that kept its inode changed in place when its ctime is not older
 * than the moment the child could start (less the clock's slack, {@link #changedSince}):
 * every write, truncate, chmod, chown or link count change sets ctime to now, and no call
 * sets it back, so a child cannot hide a write by restoring mtime ({@code touch -d}). A
 * directory whose inode changed (another one moved in: its files keep their old ctimes) has
 * every name in it reported, changed where it had the name before.
 */
final class TreeDiff {
    /**
     * How far a nanosecond-stamped file's ctime may lag the wall clock: the kernel stamps from
     * its coarse clock, which trails by at most a tick (4 ms at HZ=250, 10 ms at HZ=100).
     */
    static final long FINE_SLACK_NANOS = 100_000_000L;

    private TreeDiff() {
    }

    /**
     * Whether an entry stamped {@code st} changed at or after {@code startNanos}. A stamp with
     * no nanoseconds in either time comes from a filesystem that keeps whole seconds (ext4 with
     * small inodes, FAT's two seconds): then the wider {@link Scan#SLACK_NANOS}.
     */
    static boolean changedSince(Stamp st, long startNanos) {
        boolean coarse = st.ctimeNanos() % 1_000_000_000L == 0 && st.mtimeNanos() % 1_000_000_000L == 0;
        return st.ctimeNanos() >= startNanos - (coarse ? Scan.SLACK_NANOS : FINE_SLACK_NANOS);
    }

    /**
     * @param stamp      {@code lstat} of an absolute path
     * @param startNanos when the child could start writing, at the earliest
     * @param out        each write, with the path of the directory it was found in
     */
    static void between(Tree before, Tree after, Function<String, Optional<Stamp>> stamp, long startNanos,
            BiConsumer<Path, Verb> out) {
        Map<Path, Dir> was = new HashMap<>(before.dirs().size() * 2);
        for (Dir d : before.dirs()) {
            was.put(d.path(), d);
        }
        Set<Path> seen = new HashSet<>(after.dirs().size() * 2);
        for (Dir d : after.dirs()) {
            seen.add(d.path());
        }
        // The stamps are almost all of the cost, one lstat per file: directories are compared on
        // every core when there are enough files to pay for it (the reader is thread-safe).
        IntStream dirs = IntStream.range(0, after.dirs().size());
        if (after.files() >= PARALLEL_FILES) {
            dirs = dirs.parallel();
        }
        List<List<Map.Entry<Path, Verb>>> found = dirs
                .mapToObj(i -> compare(after.dirs().get(i), was.get(after.dirs().get(i).path()), stamp, startNanos))
                .toList();
        for (List<Map.Entry<Path, Verb>> l : found) {
            l.forEach(e -> out.accept(e.getKey(), e.getValue()));
        }
        for (Dir b : before.dirs()) {
            if (!seen.contains(b.path())) {
                out.accept(b.path(), Verb.REMOVED);
                for (String n : b.names()) {
                    out.accept(b.path().resolve(n), Verb.REMOVED);
                }
            }
        }
    }

    /** Below this many files the stamps are taken on one thread. */
    static final int PARALLEL_FILES = 4096;

    /** One directory after the run against the same path before it ({@code b}, null when there was none). */
    private static List<Map.Entry<Path, Verb>> compare(Dir d, Dir b, Function<String, Optional<Stamp>> stamp,
            long startNanos) {
        List<Map.Entry<Path, Verb>> out = new ArrayList<>();
        if (b == null) {
            out.add(Map.entry(d.path(), Verb.CREATED));
            for (String n : d.names()) {
                out.add(Map.entry(d.path().resolve(n), Verb.CREATED));
            }
            return out;
        }
        boolean replaced = b.ino() != 0 && d.ino() != 0 && b.ino() != d.ino();
        if (replaced) {
            out.add(Map.entry(d.path(), Verb.CHANGED));
        }
        Map<String, Long> had = new HashMap<>(b.names().length * 2);
        for (int i = 0; i < b.names().length; i++) {
            had.put(b.names()[i], b.inos()[i]);
        }
        for (int i = 0; i < d.names().length; i++) {
            String n = d.names()[i];
            Long ino = had.remove(n);
            if (ino == null) {
                out.add(Map.entry(d.path().resolve(n), Verb.CREATED));
            } else if (replaced || (ino != 0 && d.inos()[i] != 0 && ino != d.inos()[i])) {
                out.add(Map.entry(d.path().resolve(n), Verb.CHANGED));
            } else {
                Optional<Stamp> st = stamp.apply(TreeScan.child(d.text(), n));
                // Gone since the rescan listed it: nothing says the run left it alone (fail closed).
                if (st.isEmpty() || (ino != 0 && st.get().ino() != ino) || changedSince(st.get(), startNanos)) {
                    out.add(Map.entry(d.path().resolve(n), Verb.CHANGED));
                }
            }
        }
        for (String n : had.keySet()) {
            out.add(Map.entry(d.path().resolve(n), Verb.REMOVED));
        }
        return out;
    }

    /** The writes of {@link #between}, as a list (for tests). */
    static List<Map.Entry<Path, Verb>> list(Tree before, Tree after, Function<String, Optional<Stamp>> stamp,
            long startNanos) {
        List<Map.Entry<Path, Verb>> out = new java.util.ArrayList<>();
        between(before, after, stamp, startNanos, (p, v) -> out.add(Map.entry(p, v)));
        out.sort((a, b) -> PathOrder.INSTANCE.compare(a.getKey(), b.getKey()));
        return out;
    }
}
