package dev.magus.workspace.audit;

import dev.magus.policy.path.DirectoryReader;
import dev.magus.policy.path.DirectoryReader.Entry;
import dev.magus.policy.path.DirectoryReader.Kind;
import dev.magus.policy.path.DirectoryReader.Listing;
import dev.magus.policy.path.DirectoryReader.Stamp;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The names of whole trees (the descendant projects' directories), walked with the same
 * {@link DirectoryReader} and the same rescan rule as the control-file {@link Scan}: every
 * directory once, by name and {@code d_type}, no stat per file; and from an earlier walk,
 * one {@code lstat} per directory, listing again only a directory whose mtime or ctime is not
 * older than that walk's start less {@link Scan#SLACK_NANOS}, or whose inode changed. Creating,
 * removing or renaming a name sets its directory's times, so the names a rescan carries over
 * are exactly the names there. (A file changed in place does not: the descendant audit
 * stamps files itself, after the run, see {@link TreeDiff}.)
 */
final class TreeScan {
    private final DirectoryReader reader;

    TreeScan(DirectoryReader reader) {
        this.reader = reader;
    }

    /**
     * One directory of a walk: its parent's index (-1 for a root), its inode, and its names
     * that are not directories with their inodes ({@code d_ino}). Subdirectories are
     * directories of the walk themselves, after their parent.
     */
    record Dir(Path path, String text, int parent, long ino, String[] names, long[] inos) {
    }

    /** The directories of a walk, each after its parent, and when the walk started. */
    record Tree(List<Dir> dirs, long sinceNanos) {
        Tree {
            dirs = List.copyOf(dirs);
        }

        int files() {
            int n = 0;
            for (Dir d : dirs) {
                n += d.names().length;
            }
            return n;
        }
    }

    /** Walks {@code roots} whole; a root that is not a directory (or a link to one) has nothing. */
    Tree walk(List<Path> roots) {
        long since = Scan.nowNanos();
        List<Dir> out = new ArrayList<>();
        for (Path r : roots) {
            walk(r, r.toString(), -1, reader.stat(r.toString()).map(Stamp::ino).orElse(0L), out);
        }
        return new Tree(out, since);
    }

    /**
     * The trees now, from {@code previous}: see the class comment. A root {@code previous}
     * did not have (it did not exist then) is walked whole.
     */
    Tree rescan(Tree previous, List<Path> roots) {
        long since = Scan.nowNanos();
        long threshold = previous.sinceNanos() - Scan.SLACK_NANOS;
        List<Dir> old = previous.dirs();
        Set<Path> known = new HashSet<>(old.size() * 2);
        for (Dir d : old) {
            known.add(d.path());
        }
        List<Dir> out = new ArrayList<>(old.size());
        int[] now = new int[old.size()];
        for (int i = 0; i < old.size(); i++) {
            Dir d = old.get(i);
            now[i] = -1;
            int parent = d.parent() < 0 ? -1 : now[d.parent()];
            if (d.parent() >= 0 && parent < 0) {
                continue;
            }
            Optional<Stamp> st = reader.stat(d.text());
            if (st.isEmpty() || st.get().kind() != Kind.DIRECTORY) {
                continue;
            }
            if (d.ino() != 0 && st.get().ino() != d.ino()) {
                // Another directory now has this name: everything beneath it is new to this walk.
                walk(d.path(), d.text(), parent, st.get().ino(), out);
                continue;
            }
            if (Math.max(st.get().mtimeNanos(), st.get().ctimeNanos()) < threshold) {
                now[i] = out.size();
                out.add(new Dir(d.path(), d.text(), parent, st.get().ino(), d.names(), d.inos()));
                continue;
            }
            Optional<Listing> listing = reader.list(d.text());
            if (listing.isEmpty()) {
                continue;
            }
            now[i] = out.size();
            out.add(null);
            Names names = new Names();
            List<Object[]> fresh = new ArrayList<>();
            for (Entry e : listing.get().entries()) {
                String childText = child(d.text(), e.name());
                if (kind(childText, e) != Kind.DIRECTORY) {
                    names.add(e.name(), e.ino());
                } else if (!known.contains(d.path().resolve(e.name()))) {
                    fresh.add(new Object[] {e.name(), e.ino()});
                }
                // A known directory is stamped in its own turn, after this one.
            }
            out.set(now[i], new Dir(d.path(), d.text(), parent, st.get().ino(), names.names(), names.inos()));
            for (Object[] f : fresh) {
                String name = (String) f[0];
                walk(d.path().resolve(name), child(d.text(), name), now[i], (Long) f[1], out);
            }
        }
        Set<Path> present = new HashSet<>();
        for (Dir d : out) {
            if (d.parent() < 0) {
                present.add(d.path());
            }
        }
        for (Path r : roots) {
            if (!present.contains(r)) {
                walk(r, r.toString(), -1, reader.stat(r.toString()).map(Stamp::ino).orElse(0L), out);
            }
        }
        return new Tree(out, since);
    }

    /** Lists {@code dir} and everything beneath it into {@code out}, each directory after its parent. */
    private void walk(Path dir, String text, int parent, long ino, List<Dir> out) {
        Deque<Object[]> stack = new ArrayDeque<>();
        stack.push(new Object[] {dir, text, parent, ino});
        while (!stack.isEmpty()) {
            Object[] top = stack.pop();
            Path path = (Path) top[0];
            String t = (String) top[1];
            Optional<Listing> listing = reader.list(t);
            if (listing.isEmpty()) {
                continue;
            }
            int index = out.size();
            Names names = new Names();
            for (Entry e : listing.get().entries()) {
                String childText = child(t, e.name());
                if (kind(childText, e) == Kind.DIRECTORY) {
                    stack.push(new Object[] {path.resolve(e.name()), childText, index, e.ino()});
                } else {
                    names.add(e.name(), e.ino());
                }
            }
            out.add(new Dir(path, t, (Integer) top[2], (Long) top[3], names.names(), names.inos()));
        }
    }

    private Kind kind(String childText, Entry e) {
        return e.kind() != Kind.UNKNOWN ? e.kind() : reader.stat(childText).map(Stamp::kind).orElse(Kind.OTHER);
    }

    static String child(String dirText, String name) {
        return dirText.endsWith("/") ? dirText + name : dirText + "/" + name;
    }

    /** A growing list of names and their inodes, without a boxed long per name. */
    private static final class Names {
        private final List<String> names = new ArrayList<>();
        private long[] inos = new long[8];

        void add(String name, long ino) {
            if (names.size() == inos.length) {
                inos = Arrays.copyOf(inos, inos.length * 2);
            }
            inos[names.size()] = ino;
            names.add(name);
        }

        String[] names() {
            return names.toArray(new String[0]);
        }

        long[] inos() {
            return Arrays.copyOf(inos, names.size());
        }
    }
}
