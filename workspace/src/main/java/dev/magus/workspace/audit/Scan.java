package dev.magus.workspace.audit;

import dev.magus.policy.path.DirectoryReader;
import dev.magus.policy.path.DirectoryReader.Entry;
import dev.magus.policy.path.DirectoryReader.Kind;
import dev.magus.policy.path.DirectoryReader.Listing;
import dev.magus.policy.path.DirectoryReader.Stamp;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The I/O half of the audit: walks the workspace (and its git dirs outside it) for control
 * entries, and after the run finds what changed without walking it all again.
 *
 * <p><b>Before the run</b> every directory is listed once through the {@link DirectoryReader}
 * (one {@code getdents64} per directory with the native reader: names and their types, never a
 * stat per file) and stamped (its own {@code statx} on the open descriptor). Only the control
 * entries themselves are read: content, mode, link target.
 *
 * <p><b>After the run</b> each directory is stamped again, and only a directory whose stamp
 * moved is listed again: creating, removing or renaming a name in a directory changes its
 * mtime and ctime. A name that was not there is classified, a new directory is walked whole.
 * A directory whose inode changed was replaced and is walked whole; one that is gone takes its
 * subtree with it. Every control entry recorded before is read again, and every control
 * directory is listed whole again (they are small: hooks, agent settings). So an unchanged
 * workspace costs one stat per directory plus the control files.
 *
 * <p>The stamp is (inode, mtime, ctime, nlink, size). ctime cannot be set from user space,
 * so a child that puts a directory's mtime back with {@code touch -d} still moves its ctime.
 * What remains is the timestamp granularity: a filesystem whose clock ticks coarsely (ext4
 * without multigrain timestamps stamps with the kernel's tick, a few milliseconds; FAT, two
 * seconds) gives a directory changed by the child the same times it had if it was also
 * changed in the same tick just before the walk. A directory whose mtime or ctime lies within
 * {@link #RACY_NANOS} of the end of the walk is therefore <em>racy</em>, as git calls its own
 * case, and is listed again after the run whatever its stamp says. Renaming a name over
 * another ({@code mv a .envrc} when {@code .envrc} exists) changes the directory's times as
 * well, and the content of a control file is compared anyway.
 */
final class Scan {
    /** A directory changed this close to the end of the walk is listed again after the run. */
    static final long RACY_NANOS = 2_000_000_000L;

    private final ControlNames names;
    private final DirectoryReader reader;

    Scan(ControlNames names, DirectoryReader reader) {
        this.names = names;
        this.reader = reader;
    }

    /** A directory the walk listed: where, its parent's index, its stamp and names. */
    record Dir(Path path, String text, int parent, Stamp stamp, List<Entry> entries, boolean insideGit) {
    }

    /** What the before-walk found: control entries, the directories listed, and when it ended. */
    record Walk(Map<Path, Snapshot.Recorded> controls, List<Dir> dirs, Set<Path> wholeDirs, long endNanos) {
    }

    /** Where control entries are recorded, and directories too when the walk keeps them. */
    private final class Sink {
        final Map<Path, Snapshot.Recorded> controls = new HashMap<>();
        final Set<Path> wholeDirs = new HashSet<>();
        final List<Dir> dirs;

        Sink(boolean keepDirs) {
            this.dirs = keepDirs ? new ArrayList<>() : null;
        }
    }

    /**
     * Walks {@code roots}: the workspace root first, then each git dir outside it.
     *
     * @param gitRoots which of the roots are git dirs (their own node is a control entry)
     */
    Walk before(List<Path> roots, Set<Path> gitRoots) {
        Sink sink = new Sink(true);
        for (Path root : roots) {
            boolean git = gitRoots.contains(root);
            if (git) {
                names.control(root).ifPresent(c -> record(root, c, sink));
            }
            walk(root, git, -1, sink);
        }
        return new Walk(sink.controls, sink.dirs, sink.wholeDirs, System.currentTimeMillis() * 1_000_000L);
    }

    /** The control entries as they are now, finding new names from the stamps of {@code walk}'s directories. */
    Map<Path, Snapshot.Recorded> after(Walk walk, List<Path> roots) {
        Sink sink = new Sink(false);
        List<Dir> dirs = walk.dirs();
        boolean[] gone = new boolean[dirs.size()];
        for (int i = 0; i < dirs.size(); i++) {
            Dir d = dirs.get(i);
            if (d.parent() >= 0 && gone[d.parent()]) {
                gone[i] = true;
                continue;
            }
            Optional<Stamp> now = reader.stat(d.text());
            if (now.isEmpty() || now.get().kind() != Kind.DIRECTORY) {
                gone[i] = true;
                continue;
            }
            Stamp was = d.stamp();
            Stamp is = now.get();
            if (is.ino() != was.ino() || is.dev() != was.dev()) {
                // Replaced by another directory of the same name: everything in it is new.
                gone[i] = true;
                walk(d.path(), d.insideGit(), -1, sink);
                continue;
            }
            boolean racy = Math.max(was.mtimeNanos(), was.ctimeNanos()) >= walk.endNanos() - RACY_NANOS;
            if (!racy && is.mtimeNanos() == was.mtimeNanos() && is.ctimeNanos() == was.ctimeNanos()
                    && is.nlink() == was.nlink() && is.size() == was.size()) {
                continue;
            }
            Optional<Listing> listing = reader.list(d.text());
            if (listing.isEmpty()) {
                gone[i] = true;
                continue;
            }
            Map<String, Kind> old = new HashMap<>(d.entries().size() * 2);
            for (Entry e : d.entries()) {
                old.put(e.name(), e.kind());
            }
            for (Entry e : listing.get().entries()) {
                Kind k = kind(d.text(), e);
                Kind before = old.get(e.name());
                if (before == null || before != k) {
                    visit(d.path(), d.text(), e.name(), k, d.insideGit(), sink, -1, null);
                }
            }
        }
        // Every control entry of before, read again, safely: through real directories only.
        AncestorCheck ancestors = new AncestorCheck(roots);
        for (Map.Entry<Path, Snapshot.Recorded> e : walk.controls().entrySet()) {
            Path p = e.getKey();
            if (sink.controls.containsKey(p) || !ancestors.realDirectoriesUpTo(p)) {
                continue;
            }
            Optional<Stamp> st = reader.stat(p.toString());
            if (st.isEmpty()) {
                continue;
            }
            Optional<ControlNames.Control> c = names.control(p);
            if (c.isEmpty()) {
                continue;
            }
            record(p, st.get(), c.get(), sink);
        }
        return sink.controls;
    }

    /** Lists {@code dir} and everything beneath it that is not git's data, recording control entries. */
    private void walk(Path dir, boolean insideGit, int parent, Sink sink) {
        Deque<Object[]> stack = new ArrayDeque<>();
        stack.push(new Object[] {dir, dir.toString(), insideGit, parent});
        while (!stack.isEmpty()) {
            Object[] top = stack.pop();
            Path path = (Path) top[0];
            String text = (String) top[1];
            boolean git = (Boolean) top[2];
            int up = (Integer) top[3];
            Optional<Listing> listing = reader.list(text);
            if (listing.isEmpty()) {
                continue;
            }
            int index = -1;
            if (sink.dirs != null) {
                index = sink.dirs.size();
                sink.dirs.add(new Dir(path, text, up, listing.get().stamp(), listing.get().entries(), git));
            }
            for (Entry e : listing.get().entries()) {
                visit(path, text, e.name(), kind(text, e), git, sink, index, stack);
            }
        }
    }

    /**
     * One name in a listing: recorded when it is a control entry; a directory is walked
     * (pushed on {@code stack}, or walked at once when there is none), unless it is git's data.
     */
    private void visit(Path dir, String dirText, String name, Kind kind, boolean insideGit, Sink sink, int index,
            Deque<Object[]> stack) {
        Path child = null;
        if (names.candidate(name)) {
            child = dir.resolve(name);
            Optional<ControlNames.Control> c = names.control(child);
            if (c.isPresent()) {
                Optional<Stamp> st = reader.stat(child.toString());
                if (st.isEmpty()) {
                    return;
                }
                record(child, st.get(), c.get(), sink);
                if (c.get().wholeSubtree() || st.get().kind() != Kind.DIRECTORY) {
                    return;
                }
                // .git itself: only git's own entries beneath it are control files.
                insideGit = true;
                kind = Kind.DIRECTORY;
            }
        }
        if (kind != Kind.DIRECTORY || (insideGit && ControlNames.gitData(name))) {
            return;
        }
        if (child == null) {
            child = dir.resolve(name);
        }
        String childText = dirText.endsWith("/") ? dirText + name : dirText + "/" + name;
        if (stack != null) {
            stack.push(new Object[] {child, childText, insideGit, index});
        } else {
            walk(child, insideGit, -1, sink);
        }
    }

    private void record(Path path, ControlNames.Control c, Sink sink) {
        reader.stat(path.toString()).ifPresent(st -> record(path, st, c, sink));
    }

    /** Records {@code path}, and when it is a control directory recorded whole, everything beneath it. */
    private void record(Path path, Stamp st, ControlNames.Control c, Sink sink) {
        sink.controls.put(path, new Snapshot.Recorded(node(path, st), c.entry()));
        if (!c.wholeSubtree() || st.kind() != Kind.DIRECTORY) {
            return;
        }
        sink.wholeDirs.add(path);
        Deque<Path> stack = new ArrayDeque<>();
        stack.push(path);
        while (!stack.isEmpty()) {
            Path d = stack.pop();
            Optional<Listing> listing = reader.list(d.toString());
            if (listing.isEmpty()) {
                continue;
            }
            for (Entry e : listing.get().entries()) {
                Path p = d.resolve(e.name());
                Optional<Stamp> s = reader.stat(p.toString());
                if (s.isEmpty()) {
                    continue;
                }
                sink.controls.put(p, new Snapshot.Recorded(node(p, s.get()), c.entry()));
                if (s.get().kind() == Kind.DIRECTORY) {
                    stack.push(p);
                }
            }
        }
    }

    private Kind kind(String dirText, Entry e) {
        if (e.kind() != Kind.UNKNOWN) {
            return e.kind();
        }
        String p = dirText.endsWith("/") ? dirText + e.name() : dirText + "/" + e.name();
        return reader.stat(p).map(Stamp::kind).orElse(Kind.UNKNOWN);
    }

    /** What {@code path} is, read without following a link at its end. */
    static Node node(Path path, Stamp st) {
        switch (st.kind()) {
            case DIRECTORY:
                return new Node.Directory(st.permissions());
            case LINK:
                try {
                    return new Node.Link(Files.readSymbolicLink(path).toString());
                } catch (IOException e) {
                    return new Node.Other(st.mode());
                }
            case FILE:
                return readFile(path, st).<Node>map(c -> new Node.File(st.permissions(), c))
                        .orElseGet(() -> new Node.Other(st.mode()));
            default:
                return new Node.Other(st.mode());
        }
    }

    /** The file's bytes, opened with {@code O_NOFOLLOW}; empty when it cannot be read (then only its mode is compared). */
    private static Optional<Node.Content> readFile(Path path, Stamp st) {
        try (SeekableByteChannel ch = Files.newByteChannel(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            long size = Math.max(ch.size(), st.size());
            if (size > Integer.MAX_VALUE - 16) {
                return Optional.empty();
            }
            ByteBuffer buf = ByteBuffer.allocate((int) size + 1);
            while (ch.read(buf) > 0) {
                if (!buf.hasRemaining()) {
                    ByteBuffer bigger = ByteBuffer.allocate(buf.capacity() * 2);
                    buf.flip();
                    bigger.put(buf);
                    buf = bigger;
                }
            }
            byte[] bytes = new byte[buf.position()];
            buf.flip().get(bytes);
            return Optional.of(Node.Content.of(bytes));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * Whether every directory from a root down to (not including) a path is a real directory,
     * never a link: what the child left must not lead a read, or a restore, elsewhere.
     */
    final class AncestorCheck {
        private final List<Path> roots;
        private final Map<Path, Boolean> known = new HashMap<>();

        AncestorCheck(List<Path> roots) {
            this.roots = roots;
        }

        Optional<Path> rootOf(Path p) {
            Path best = null;
            for (Path r : roots) {
                if (p.startsWith(r) && (best == null || r.getNameCount() > best.getNameCount())) {
                    best = r;
                }
            }
            return Optional.ofNullable(best);
        }

        boolean realDirectoriesUpTo(Path p) {
            Optional<Path> root = rootOf(p);
            if (root.isEmpty()) {
                return false;
            }
            for (Path a = p.getParent(); a != null && a.startsWith(root.get()); a = a.getParent()) {
                Boolean ok = known.get(a);
                if (ok == null) {
                    ok = reader.stat(a.toString()).map(s -> s.kind() == Kind.DIRECTORY).orElse(false);
                    known.put(a, ok);
                }
                if (!ok) {
                    return false;
                }
            }
            return true;
        }
    }
}
