package dev.magus.workspace.audit;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The pure half of the audit: the changes between two snapshots. No filesystem.
 *
 * <p>An entry created beneath a directory that was itself created (or removed beneath one
 * that was removed) is folded into it: putting the directory back deals with both.
 */
public final class Comparison {
    private Comparison() {
    }

    /** What differs from {@code before} to {@code after}, in path order. */
    public static List<Change> between(Snapshot before, Snapshot after) {
        Set<Path> paths = new TreeSet<>(PathOrder.INSTANCE);
        paths.addAll(before.entries().keySet());
        paths.addAll(after.entries().keySet());
        List<Change> out = new ArrayList<>();
        Path createdDir = null;
        Path removedDir = null;
        int createdAt = -1;
        int removedAt = -1;
        for (Path p : paths) {
            Snapshot.Recorded was = before.entries().get(p);
            Snapshot.Recorded now = after.entries().get(p);
            if (was == null) {
                if (createdDir != null && p.startsWith(createdDir)) {
                    Change.Created c = (Change.Created) out.get(createdAt);
                    out.set(createdAt, new Change.Created(c.path(), c.entry(), c.now(), c.beneath() + 1));
                    continue;
                }
                out.add(new Change.Created(p, now.entry(), now.node(), 0));
                if (now.node() instanceof Node.Directory) {
                    createdDir = p;
                    createdAt = out.size() - 1;
                }
            } else if (now == null) {
                if (removedDir != null && p.startsWith(removedDir)) {
                    Change.Removed r = (Change.Removed) out.get(removedAt);
                    out.set(removedAt, new Change.Removed(r.path(), r.entry(), r.was(), r.beneath() + 1));
                    continue;
                }
                out.add(new Change.Removed(p, was.entry(), was.node(), 0));
                if (was.node() instanceof Node.Directory) {
                    removedDir = p;
                    removedAt = out.size() - 1;
                }
            } else {
                Set<Change.Aspect> aspects = aspects(was.node(), now.node());
                if (!aspects.isEmpty()) {
                    out.add(new Change.Changed(p, was.entry(), was.node(), now.node(), aspects));
                }
            }
        }
        return List.copyOf(out);
    }

    /** What differs between two nodes of one path; empty when they are the same. */
    public static Set<Change.Aspect> aspects(Node was, Node now) {
        Set<Change.Aspect> out = EnumSet.noneOf(Change.Aspect.class);
        if (was.getClass() != now.getClass()) {
            out.add(Change.Aspect.TYPE);
            return out;
        }
        if (was instanceof Node.File f && now instanceof Node.File g) {
            if (!f.content().equals(g.content())) {
                out.add(Change.Aspect.CONTENT);
            }
            if (f.permissions() != g.permissions()) {
                out.add(Change.Aspect.MODE);
            }
        } else if (was instanceof Node.Directory d && now instanceof Node.Directory e) {
            if (d.permissions() != e.permissions()) {
                out.add(Change.Aspect.MODE);
            }
        } else if (was instanceof Node.Link l && now instanceof Node.Link m) {
            if (!l.target().equals(m.target())) {
                out.add(Change.Aspect.LINK);
            }
        } else if (was instanceof Node.Other o && now instanceof Node.Other q) {
            if (o.mode() != q.mode()) {
                out.add(Change.Aspect.MODE);
            }
        }
        return out;
    }
}
