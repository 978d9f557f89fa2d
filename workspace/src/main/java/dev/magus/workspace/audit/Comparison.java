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
        // The change whose directory appeared (created, or now a directory) or went away
        // (removed, or no longer a directory), and where it is in out.
        Path appeared = null;
        Path vanished = null;
        int appearedAt = -1;
        int vanishedAt = -1;
        for (Path p : paths) {
            Snapshot.Recorded was = before.entries().get(p);
            Snapshot.Recorded now = after.entries().get(p);
            if (was == null && appeared != null && p.startsWith(appeared)) {
                out.set(appearedAt, folded(out.get(appearedAt)));
                continue;
            }
            if (now == null && vanished != null && p.startsWith(vanished)) {
                out.set(vanishedAt, folded(out.get(vanishedAt)));
                continue;
            }
            Change c;
            if (was == null) {
                c = new Change.Created(p, now.entry(), now.node(), 0);
            } else if (now == null) {
                c = new Change.Removed(p, was.entry(), was.node(), 0);
            } else {
                Set<Change.Aspect> aspects = aspects(was.node(), now.node());
                if (aspects.isEmpty()) {
                    continue;
                }
                c = new Change.Changed(p, was.entry(), was.node(), now.node(), aspects, 0);
            }
            out.add(c);
            boolean directoryBefore = was != null && was.node() instanceof Node.Directory;
            boolean directoryAfter = now != null && now.node() instanceof Node.Directory;
            if (directoryAfter && !directoryBefore) {
                appeared = p;
                appearedAt = out.size() - 1;
            }
            if (directoryBefore && !directoryAfter) {
                vanished = p;
                vanishedAt = out.size() - 1;
            }
        }
        return List.copyOf(out);
    }

    private static Change folded(Change c) {
        if (c instanceof Change.Created cr) {
            return new Change.Created(cr.path(), cr.entry(), cr.now(), cr.beneath() + 1);
        }
        if (c instanceof Change.Removed r) {
            return new Change.Removed(r.path(), r.entry(), r.was(), r.beneath() + 1);
        }
        Change.Changed ch = (Change.Changed) c;
        return new Change.Changed(ch.path(), ch.entry(), ch.was(), ch.now(), ch.aspects(), ch.beneath() + 1);
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
            if (!l.resolved().equals(m.resolved())) {
                out.add(Change.Aspect.TARGET);
            }
        } else if (was instanceof Node.Other o && now instanceof Node.Other q) {
            if (o.mode() != q.mode()) {
                out.add(Change.Aspect.MODE);
            }
        }
        return out;
    }
}
