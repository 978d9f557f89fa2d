package dev.magus.workspace.audit;

import dev.magus.policy.path.DirectoryReader;
import dev.magus.policy.path.DirectoryReader.Entry;
import dev.magus.policy.path.DirectoryReader.Kind;
import dev.magus.policy.path.DirectoryReader.Listing;
import dev.magus.policy.path.DirectoryReader.Stamp;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The I/O half of the audit: walks the workspace (and its git dirs outside it) for control
 * entries, noting when the walk <em>started</em> (before its first system call); it lists each
 * directory ({@link DirectoryReader}: no stat) and reads only control entries. After the run
 * each known directory is stamped ({@code lstat}) and listed again only when its mtime or ctime
 * is not older than that start less {@link #SLACK_NANOS}, or its inode changed: a name created,
 * removed or renamed in it sets both, and ctime cannot be set from user space. New directories
 * are walked whole; control entries are read and control directories listed again. With the
 * kernel's events ({@link EventPass}) only the directories they name are stamped. A next run
 * rescans from the kept walk ({@link WalkCache}), exact at any age since the threshold is that
 * walk's start. The slack covers coarse and FAT clocks; a clock stepped back by more during the
 * run can hide a name created in an existing directory. What cannot be listed is kept as
 * {@link Unlisted}, never skipped.
 */
final class Scan {
    /** A directory whose times are this close to the start of the walk, or later, is listed again after the run. */
    static final long SLACK_NANOS = 2_000_000_000L;

    private final ControlNames names;
    private final DirectoryReader reader;
    private final Walker walker;

    Scan(ControlNames names, DirectoryReader reader) {
        this.names = names;
        this.reader = reader;
        this.walker = new Walker(names, reader);
    }

    /** A directory the walk listed: where, its parent's index, and its inode (0 when unknown). */
    record Dir(Path path, String text, int parent, long ino, ControlNames.Place place) {
    }

    /**
     * What a walk found: control entries, the directories listed, and when it started (before
     * its first system call: every change it did not see came after that).
     */
    record Walk(Map<Path, Snapshot.Recorded> controls, List<Dir> dirs, Set<Path> wholeDirs, List<Unlisted> unlisted,
                long sinceNanos, int listed) {
        /** What a later {@link #rescan} needs of this walk. */
        Previous previous() {
            return new Previous(dirs, controls.keySet(), unlisted, sinceNanos);
        }
    }

    /**
     * What a rescan starts from: the directories a walk listed (each after its parent), the
     * control entries it recorded, and when it started. Kept in the process, or read back from
     * the state dir ({@link WalkCache}).
     */
    record Previous(List<Dir> dirs, Set<Path> controls, List<Unlisted> unlisted, long sinceNanos) {
        Previous {
            dirs = List.copyOf(dirs);
            controls = Set.copyOf(controls);
            unlisted = List.copyOf(unlisted);
        }

        Previous(List<Dir> dirs, Set<Path> controls, long sinceNanos) {
            this(dirs, controls, List.of(), sinceNanos);
        }
    }

    static long nowNanos() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /**
     * Walks {@code roots}: the workspace root first, then each git dir outside it; from
     * {@code previous}, a walk of the same roots, only what changed since it ({@link #rescan}).
     *
     * @param gitRoots which of the roots are git dirs (their own node is a control entry)
     */
    Walk before(List<Path> roots, Set<Path> gitRoots, Optional<Previous> previous) {
        if (previous.isPresent() && previous.get().sinceNanos() <= nowNanos()) {
            return rescan(previous.get(), roots);
        }
        WalkSink sink = new WalkSink();
        for (Path root : roots) {
            boolean git = gitRoots.contains(root);
            if (git) {
                names.control(root).ifPresent(c -> walker.record(root, c, sink));
            }
            walker.walk(root, git ? ControlNames.Place.GIT_DIR : ControlNames.Place.WORKTREE, -1, sink);
        }
        walker.byName(sink);
        return sink.walk();
    }

    /**
     * The workspace now, from {@code walk} and the times of its directories: each directory is
     * stamped, and listed again only when its times say it changed since {@code walk} started;
     * a name it did not have is classified, a directory it did not know walked whole. Every
     * control entry of {@code walk} is read again, through real directories only.
     */
    Walk rescan(Previous walk, List<Path> roots) {
        return rescan(walk, roots, Optional.empty(), nowNanos());
    }

    /**
     * {@link #rescan(Previous, List)}, where {@code touched}, when given, holds every directory
     * that had a name created, removed or renamed, or its own attributes changed, since
     * {@code walk} started (the kernel's events: {@link ChangeEvents}): then only those
     * directories, their subdirectories and the roots are stamped, the rest are kept as the walk
     * had them without a system call. A directory neither touched nor beneath a touched one
     * kept its names, its mode and its inode, since each of those changes is an event in it or
     * in its parent. {@code since} is when what this walk saw started: for events, the moment
     * before they were read.
     */
    Walk rescan(Previous walk, List<Path> roots, Optional<Set<Path>> touched, long since) {
        return rescan(walk, roots, touched, since, null);
    }

    /**
     * {@link #rescan(Previous, List, Optional, long)} that also adds to {@code setid} each
     * regular file with a set-user-ID or set-group-ID bit, changed since {@code walk} started,
     * among the names of the directories it lists (one {@code lstat} per regular file of a
     * directory listed again, none elsewhere): a file the run created, moved or linked in, or
     * chmod-ed where the kernel's events name its directory.
     */
    Walk rescan(Previous walk, List<Path> roots, Optional<Set<Path>> touched, long since, List<Path> setid) {
        WalkSink sink = new WalkSink(since);
        sink.setid = setid;
        sink.setidSince = walk.sinceNanos() - SLACK_NANOS;
        List<Dir> dirs = walk.dirs();
        Set<Path> known = new HashSet<>(dirs.size() * 2);
        for (Dir d : dirs) {
            known.add(d.path());
            if (d.place() == ControlNames.Place.BARE) {
                // A bare repository stays one for the names, listed again or not.
                names.gitDir(d.path());
            }
        }
        // Each is met again below, whatever its times say: its times do not cover what is beneath it.
        Map<Path, Unlisted> unlistedBefore = new HashMap<>();
        for (Unlisted u : walk.unlisted()) {
            if (u.parent() != Unlisted.IN_CONTROL) {
                known.add(u.path());
                unlistedBefore.put(u.path(), u);
            }
        }
        // The names each directory listed again here had, by its index in the new walk: what is gone.
        Map<Integer, Set<String>> relisted = new HashMap<>();
        long threshold = walk.sinceNanos() - SLACK_NANOS;
        // The index of each old directory in the new walk; -1 when it is gone (and so is its subtree).
        int[] now = new int[dirs.size()];
        for (int i = 0; i < dirs.size(); i++) {
            Dir d = dirs.get(i);
            now[i] = -1;
            int parent = d.parent() < 0 ? -1 : now[d.parent()];
            if (d.parent() >= 0 && parent < 0) {
                continue;
            }
            if (touched.isPresent() && d.parent() >= 0 && !touched.get().contains(d.path())
                    && !relisted.containsKey(parent) && !unlistedBefore.containsKey(d.path())) {
                now[i] = sink.dirs.size();
                sink.dirs.add(new Dir(d.path(), d.text(), parent, d.ino(), d.place()));
                continue;
            }
            Optional<Stamp> st = reader.stat(d.text());
            if (st.isEmpty() && !gone(d.path(), parent, relisted)) {
                // Still named in its parent, yet lstat fails: no search permission on the way, a path too long.
                sink.unlisted.put(d.path(), walker.unlisted(d.path(), d.text(), parent, d.place()));
                continue;
            }
            if (st.isEmpty() || st.get().kind() != Kind.DIRECTORY) {
                continue;
            }
            if (d.ino() != 0 && st.get().ino() != d.ino()) {
                // Another directory now has this name (one moved in keeps its old times, and
                // so may its subdirectories): everything in it is new.
                walker.walk(d.path(), d.place(), parent, sink);
                continue;
            }
            now[i] = sink.dirs.size();
            sink.dirs.add(new Dir(d.path(), d.text(), parent, st.get().ino(), d.place()));
            if (Math.max(st.get().mtimeNanos(), st.get().ctimeNanos()) < threshold
                    && !unlistedBefore.containsKey(d.path()) && !touched.map(t -> t.contains(d.path())).orElse(false)) {
                continue;
            }
            Optional<Listing> listing = reader.list(d.text());
            sink.listed++;
            if (listing.isEmpty()) {
                sink.unlisted.put(d.path(), walker.unlisted(d.path(), d.text(), parent, d.place()));
                continue;
            }
            ControlNames.Place place = walker.placed(d.path(), d.place(), listing.get());
            if (place != d.place()) {
                sink.dirs.set(now[i], new Dir(d.path(), d.text(), parent, st.get().ino(), place));
            }
            Set<String> seen = new HashSet<>();
            relisted.put(now[i], seen);
            for (Entry e : listing.get().entries()) {
                seen.add(e.name());
                Kind k = walker.kind(d.text(), e);
                if (k == Kind.DIRECTORY && known.contains(d.path().resolve(e.name()))) {
                    // Known: stamped in its own turn (it comes after its parent); recorded here if a control entry.
                    Path child = d.path().resolve(e.name());
                    names.classify(child, e.name()).ifPresent(c -> walker.record(child, c, sink));
                    continue;
                }
                walker.visit(d.path(), d.text(), e, k, place, sink, now[i], null);
            }
        }
        // Directories that could not be listed before and that no listing above met again: try once more.
        for (Unlisted u : unlistedBefore.values()) {
            int parent = u.parent() < 0 ? -1 : now[u.parent()];
            if (sink.unlisted.containsKey(u.path()) || known(sink, u.path()) || (u.parent() >= 0 && parent < 0)) {
                continue;
            }
            Optional<Stamp> st = reader.stat(u.path().toString());
            if (st.isEmpty() ? !gone(u.path(), parent, relisted) : st.get().kind() == Kind.DIRECTORY) {
                walker.walk(u.path(), u.place(), parent, sink);
            }
        }
        AncestorCheck ancestors = new AncestorCheck(reader, roots);
        for (Path p : walk.controls()) {
            if (sink.controls.containsKey(p) || !ancestors.realDirectoriesUpTo(p)) {
                continue;
            }
            Optional<Stamp> st = reader.stat(p.toString());
            Optional<ControlNames.Control> c = names.control(p);
            if (st.isPresent() && c.isPresent()) {
                walker.record(p, st.get(), c.get(), sink);
            }
        }
        walker.byName(sink);
        return sink.walk();
    }

    /**
     * Whether {@code path}, which lstat no longer answers for, is gone: its parent was listed
     * again and no longer names it. A parent not listed again kept its names (a name removed
     * moves its times), and a root has none: then lstat failed for want of access.
     */
    private static boolean gone(Path path, int parent, Map<Integer, Set<String>> relisted) {
        Set<String> names = parent < 0 ? null : relisted.get(parent);
        return names != null && !names.contains(path.getFileName().toString());
    }

    private static boolean known(WalkSink sink, Path dir) {
        for (Dir d : sink.dirs) {
            if (d.path().equals(dir)) {
                return true;
            }
        }
        return false;
    }


}
