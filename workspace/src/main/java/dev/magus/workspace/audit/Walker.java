package dev.magus.workspace.audit;

import dev.magus.policy.path.DirectoryReader;
import dev.magus.policy.path.DirectoryReader.Entry;
import dev.magus.policy.path.DirectoryReader.Kind;
import dev.magus.policy.path.DirectoryReader.Listing;
import dev.magus.policy.path.DirectoryReader.Stamp;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

/**
 * Lists directories for {@link Scan}: a subtree walked whole (every directory listed once
 * through the {@link DirectoryReader}, names and types, no stat per file), each name of a
 * listing classified, and each control entry recorded ({@link EntryReads}), a control
 * directory recorded whole with everything beneath it. What cannot be listed is kept as
 * {@link Unlisted}, never skipped.
 */
final class Walker {
    private final ControlNames names;
    private final DirectoryReader reader;

    Walker(ControlNames names, DirectoryReader reader) {
        this.names = names;
        this.reader = reader;
    }

    /** {@code S_ISUID | S_ISGID}. */
    static final int SETID_BITS = 06000;

    /** Lists {@code dir} and everything beneath it that is not git's data, recording control entries. */
    void walk(Path dir, ControlNames.Place place, int parent, WalkSink sink) {
        Deque<Object[]> stack = new ArrayDeque<>();
        stack.push(new Object[] {dir, dir.toString(), place, parent, reader.stat(dir.toString()).map(Stamp::ino).orElse(0L)});
        while (!stack.isEmpty()) {
            Object[] top = stack.pop();
            Path path = (Path) top[0];
            String text = (String) top[1];
            ControlNames.Place git = (ControlNames.Place) top[2];
            int up = (Integer) top[3];
            long ino = (Long) top[4];
            Optional<Listing> listing = reader.list(text);
            sink.listed++;
            if (listing.isEmpty()) {
                if (reader.stat(text).map(st -> st.kind() == Kind.DIRECTORY).orElse(true)) {
                    sink.unlisted.put(path, unlisted(path, text, up, git));
                }
                continue;
            }
            git = placed(path, git, listing.get());
            int index = sink.dirs.size();
            sink.dirs.add(new Scan.Dir(path, text, up, ino, git));
            for (Entry e : listing.get().entries()) {
                visit(path, text, e, kind(text, e), git, sink, index, stack);
            }
        }
    }

    /**
     * Where the directory {@code path}, listed at {@code place} as {@code listing}, is: a bare
     * repository ({@link ControlNames.Place#BARE}) registered with the names before any of its
     * own names is classified, so that its hooks and config are control entries.
     */
    ControlNames.Place placed(Path path, ControlNames.Place place, Listing listing) {
        ControlNames.Place p = place.listed(ControlNames.marksGitDir(listing.entries()));
        if (p == ControlNames.Place.BARE) {
            names.gitDir(path);
        }
        return p;
    }

    /**
     * One name in a listing of the directory at {@code index}: recorded when it is a control
     * entry; a directory is walked (pushed on {@code stack}, or walked at once when there is
     * none), unless it is git's data.
     */
    void visit(Path dir, String dirText, Entry entry, Kind kind, ControlNames.Place place, WalkSink sink, int index,
            Deque<Object[]> stack) {
        String name = entry.name();
        if (kind == Kind.FILE && sink.setid != null) {
            String text = dirText.endsWith("/") ? dirText + name : dirText + "/" + name;
            reader.stat(text).ifPresent(st -> {
                if ((st.mode() & SETID_BITS) != 0 && st.kind() == Kind.FILE && st.ctimeNanos() >= sink.setidSince) {
                    sink.setid.add(dir.resolve(name));
                }
            });
        }
        Path child = null;
        Optional<ControlNames.Place> inner = Optional.empty();
        if (names.candidate(name)) {
            child = dir.resolve(name);
            Optional<ControlNames.Control> c = names.control(child);
            if (c.isPresent()) {
                Optional<Stamp> st = reader.stat(child.toString());
                if (st.isEmpty()) {
                    // Listed, yet lstat fails (no search permission on its directory): not known, so not audited.
                    sink.unlisted.put(child, new Unlisted(child, index, Optional.empty(), false, place));
                    return;
                }
                record(child, st.get(), c.get(), sink);
                if (c.get().wholeSubtree() || st.get().kind() != Kind.DIRECTORY) {
                    return;
                }
                // .git itself: only git's own entries beneath it are control files.
                kind = Kind.DIRECTORY;
                inner = Optional.of(ControlNames.Place.GIT_DIR);
            }
        }
        if (kind != Kind.DIRECTORY) {
            return;
        }
        if (inner.isEmpty()) {
            inner = place.child(name);
            if (inner.isEmpty()) {
                return;
            }
        }
        if (child == null) {
            child = dir.resolve(name);
        }
        String childText = dirText.endsWith("/") ? dirText + name : dirText + "/" + name;
        if (stack != null) {
            stack.push(new Object[] {child, childText, inner.get(), index, entry.ino()});
        } else {
            walk(child, inner.get(), index, sink);
        }
    }

    void record(Path path, ControlNames.Control c, WalkSink sink) {
        reader.stat(path.toString()).ifPresent(st -> record(path, st, c, sink));
    }

    /** Records {@code path}, and when it is a control directory recorded whole, everything beneath it. */
    void record(Path path, Stamp st, ControlNames.Control c, WalkSink sink) {
        sink.controls.put(path, new Snapshot.Recorded(EntryReads.node(path, st), c.entry()));
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
                sink.unlisted.put(d, unlisted(d, d.toString(), Unlisted.IN_CONTROL, ControlNames.Place.GIT_DIR));
                continue;
            }
            for (Entry e : listing.get().entries()) {
                Path p = d.resolve(e.name());
                Optional<Stamp> s = reader.stat(p.toString());
                if (s.isEmpty()) {
                    sink.unlisted.put(d, unlisted(d, d.toString(), Unlisted.IN_CONTROL, ControlNames.Place.GIT_DIR));
                    continue;
                }
                sink.controls.put(p, new Snapshot.Recorded(EntryReads.node(p, s.get()), c.entry()));
                if (s.get().kind() == Kind.DIRECTORY) {
                    stack.push(p);
                }
            }
        }
    }

    /**
     * Beneath each directory of {@code sink} that cannot be listed yet can be searched (a
     * {@code chmod 111}: git or direnv still open {@code d/.envrc} by name), every fixed entry of
     * the specification's list is looked up by name ({@code lstat d/.envrc}, {@code d/.git},
     * {@code d/.git/hooks}, {@code d/magus.yaml}, ...) and recorded, so that it is compared and
     * restored as any other; what no fixed name reaches stays unaudited.
     */
    void byName(WalkSink sink) {
        for (Unlisted u : java.util.List.copyOf(sink.unlisted.values())) {
            if (!u.searchable() || u.parent() == Unlisted.IN_CONTROL) {
                continue;
            }
            for (String entry : dev.magus.policy.control.ControlFiles.entries()) {
                if (entry.startsWith("<")) {
                    continue;
                }
                Path child = u.path().resolve(entry.endsWith("/") ? entry.substring(0, entry.length() - 1) : entry);
                if (sink.controls.containsKey(child)) {
                    continue;
                }
                Optional<ControlNames.Control> c = names.control(child);
                if (c.isPresent()) {
                    reader.stat(child.toString()).ifPresent(st -> record(child, st, c.get(), sink));
                }
            }
            // A bare repository that cannot be listed: told by lstat of its markers, as the check
            // tells it, and its own entries looked up by name.
            if ((u.place() == ControlNames.Place.WORKTREE || u.place() == ControlNames.Place.INSIDE
                    || u.place() == ControlNames.Place.BARE) && markedByName(u.path())) {
                names.gitDir(u.path());
                for (String n : GIT_DIR_NAMES) {
                    Path child = u.path().resolve(n);
                    if (sink.controls.containsKey(child)) {
                        continue;
                    }
                    Optional<ControlNames.Control> c = names.control(child);
                    if (c.isPresent()) {
                        reader.stat(child.toString()).ifPresent(st -> record(child, st, c.get(), sink));
                    }
                }
            }
            // Submodules' git dirs (.git/modules/<name>/hooks, config, ...): their names are in .gitmodules.
            for (Path child : SubmoduleNames.entriesBeneath(u.path())) {
                if (sink.controls.containsKey(child)) {
                    continue;
                }
                Optional<ControlNames.Control> c = names.control(child);
                if (c.isPresent()) {
                    reader.stat(child.toString()).ifPresent(st -> record(child, st, c.get(), sink));
                }
            }
        }
    }

    /** The entries right beneath a git dir that a lookup by name reaches (the rest need a listing). */
    private static final java.util.List<String> GIT_DIR_NAMES = java.util.List.of("hooks", "config", "config.worktree",
            "info", "commondir");

    /** Whether each of {@link dev.magus.policy.control.ControlFiles#GIT_DIR_MARKERS} is in {@code dir}, by {@code lstat}. */
    private boolean markedByName(Path dir) {
        for (String m : dev.magus.policy.control.ControlFiles.GIT_DIR_MARKERS) {
            if (reader.stat(dir.resolve(m).toString()).isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /** What the walk knows of a directory it could not list: its stamp now, and whether a name beneath it is reachable. */
    Unlisted unlisted(Path path, String text, int parent, ControlNames.Place place) {
        return new Unlisted(path, parent, reader.stat(text), reader.stat(text.endsWith("/") ? text + "." : text + "/.")
                .isPresent(), place);
    }

    Kind kind(String dirText, Entry e) {
        if (e.kind() != Kind.UNKNOWN) {
            return e.kind();
        }
        String p = dirText.endsWith("/") ? dirText + e.name() : dirText + "/" + e.name();
        return reader.stat(p).map(Stamp::kind).orElse(Kind.UNKNOWN);
    }
}
