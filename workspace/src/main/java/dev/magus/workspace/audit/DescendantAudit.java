package dev.magus.workspace.audit;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Echo;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.policy.path.DirectoryReader;
import dev.magus.workspace.StateDir;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The descendant-scope audit of one write-mode dispatch (MGS3001): {@link #before} records the
 * names in every registered descendant project's tree before the child starts;
 * {@link Baseline#after}, once the run's process group is gone, finds every entry the run
 * created, changed or removed there, one MGS3001 per descendant project touched, naming the
 * first {@link #SHOWN} entries and the count. It undoes nothing: it fails the run.
 *
 * <p>Before the run a kept walk ({@link TreeCache}) is rescanned, else the trees are listed;
 * after it every directory and file is stamped, since a file changed in place moves only its
 * own ctime ({@link TreeDiff}). The trees are walked whole, {@code node_modules} and
 * {@code .git} included: any write there is the descendant's.
 */
public final class DescendantAudit {
    /** How many entries a diagnostic names; the rest are counted. */
    public static final int SHOWN = 10;
    /** Detail keys of MGS3001. */
    public static final String PROJECT = "project";
    public static final String COUNT = "count";
    public static final String FILES = "files";

    private final Path workspaceRoot;
    private final List<Path> projects;
    private final List<Path> roots;
    private final DirectoryReader reader;
    /** The walks kept from run to run by this audit's owner. */
    private final AuditCaches caches;
    private final Optional<TreeCache> cache;
    private final String key;

    private DescendantAudit(Path workspaceRoot, List<Path> projects, DirectoryReader reader, AuditCaches caches,
            Optional<TreeCache> cache) {
        this.workspaceRoot = workspaceRoot;
        this.caches = caches;
        this.projects = projects;
        this.reader = reader;
        this.cache = cache;
        List<Path> r = new ArrayList<>();
        for (Path p : projects) {
            // A project nested in another descendant is walked with it.
            if (projects.stream().noneMatch(q -> !q.equals(p) && p.startsWith(q))) {
                r.add(p);
            }
        }
        this.roots = List.copyOf(r);
        this.key = TreeCache.key(roots);
    }

    /**
     * An audit of {@code descendants}: the registered projects inside the project the dispatch
     * runs on ({@link #below}). A relative one is relative to {@code workspaceRoot}; each is
     * taken at its real path, where the child's writes land. It starts from the walk
     * {@code caches} kept and keeps its own there.
     */
    public static DescendantAudit of(Path workspaceRoot, Collection<Path> descendants, AuditCaches caches) {
        return of(workspaceRoot, descendants, Readers.installed(), caches);
    }

    public static DescendantAudit of(Path workspaceRoot, Collection<Path> descendants, DirectoryReader reader,
            AuditCaches caches) {
        Path root = real(workspaceRoot.toAbsolutePath().normalize());
        TreeSet<Path> set = new TreeSet<>(PathOrder.INSTANCE);
        for (Path d : descendants) {
            set.add(real(root.resolve(d).normalize()));
        }
        return new DescendantAudit(root, List.copyOf(set), Objects.requireNonNull(reader, "reader"),
                Objects.requireNonNull(caches, "caches"), Optional.empty());
    }

    /**
     * The registered project directories strictly inside {@code project}: the descendants a
     * write-mode dispatch on it must not write into. Pure: paths are compared as given.
     */
    public static List<Path> below(Path project, Collection<Path> registered) {
        List<Path> out = new ArrayList<>();
        for (Path p : registered) {
            if (p.startsWith(project) && !p.equals(project)) {
                out.add(p);
            }
        }
        out.sort(PathOrder.INSTANCE);
        return List.copyOf(out);
    }

    private static Path real(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            return p;
        }
    }

    /** This audit, starting from the walk {@code caches} kept and keeping its own there (a fresh one: a new process). */
    public DescendantAudit withCaches(AuditCaches caches) {
        return new DescendantAudit(workspaceRoot, projects, reader, Objects.requireNonNull(caches, "caches"), cache);
    }

    /** This audit, also keeping its last walk in {@code state}'s {@code audit} directory for the next process. */
    public DescendantAudit keepingWalksIn(StateDir state) {
        return new DescendantAudit(workspaceRoot, projects, reader, caches,
                Optional.of(new TreeCache(state.dir().resolve("audit"))));
    }

    /** The descendant projects this audit watches, at their real paths. */
    public List<Path> projects() {
        return projects;
    }

    /** Records the names in the trees now: call right before the child starts. */
    public Baseline before() {
        TreeScan scan = new TreeScan(reader);
        Optional<TreeScan.Tree> previous = Optional.ofNullable(caches.trees.get(key));
        if (previous.isEmpty() && cache.isPresent()) {
            previous = cache.get().load(key, roots, Scan.nowNanos());
        }
        TreeScan.Tree tree = previous.isPresent() && previous.get().sinceNanos() <= Scan.nowNanos()
                ? scan.rescan(previous.get(), roots) : scan.walk(roots);
        caches.trees.put(key, tree);
        return new Baseline(tree, Scan.nowNanos());
    }

    /** What one run's audit found, and the MGS3001 diagnostics that say so (one per project). */
    public record Report(List<DescendantWrite> writes, List<Diagnostic> diagnostics) {
        public Report {
            writes = List.copyOf(writes);
            diagnostics = List.copyOf(diagnostics);
        }

        /** Whether the run wrote inside a descendant, and so fails. */
        public boolean wrote() {
            return !writes.isEmpty();
        }
    }

    /** The trees before the run. */
    public final class Baseline {
        private final TreeScan.Tree tree;
        private final long startNanos;

        private Baseline(TreeScan.Tree tree, long startNanos) {
            this.tree = tree;
            this.startNanos = startNanos;
        }

        public int directories() {
            return tree.dirs().size();
        }

        public int files() {
            return tree.files();
        }

        /** Compares with now and reports. Call once the child's process group is gone. */
        public Report after() {
            TreeScan.Tree now = new TreeScan(reader).rescan(tree, roots);
            caches.trees.put(key, now);
            cache.ifPresent(c -> c.save(key, now));
            List<DescendantWrite> writes = new ArrayList<>();
            TreeDiff.between(tree, now, reader::stat, startNanos,
                    (p, v) -> writes.add(new DescendantWrite(p, projectOf(p), v)));
            writes.sort((a, b) -> PathOrder.INSTANCE.compare(a.path(), b.path()));
            Map<Path, List<DescendantWrite>> byProject = new LinkedHashMap<>();
            for (DescendantWrite w : writes) {
                byProject.computeIfAbsent(w.project(), k -> new ArrayList<>()).add(w);
            }
            List<Diagnostic> out = new ArrayList<>();
            byProject.forEach((project, list) -> out.add(diagnostic(project, list)));
            return new Report(writes, out);
        }
    }

    /** The deepest descendant project holding {@code p}. */
    private Path projectOf(Path p) {
        Path best = roots.get(0);
        int depth = -1;
        for (Path q : projects) {
            if (p.startsWith(q) && q.getNameCount() > depth) {
                best = q;
                depth = q.getNameCount();
            }
        }
        return best;
    }

    Diagnostic diagnostic(Path project, List<DescendantWrite> writes) {
        List<String> shown = new ArrayList<>();
        for (int i = 0; i < Math.min(SHOWN, writes.size()); i++) {
            DescendantWrite w = writes.get(i);
            shown.add(Echo.visible(shown(w.path())) + " (" + w.verb().word() + ")");
        }
        int more = writes.size() - shown.size();
        String name = Echo.visible(shown(project));
        String message = "write-mode dispatch wrote inside descendant project " + name + ": " + writes.size()
                + (writes.size() == 1 ? " entry" : " entries") + " created, changed or removed: "
                + String.join(", ", shown) + (more > 0 ? " and " + more + " more" : "")
                + "; the run fails (nothing was undone)";
        return new Diagnostic(Code.MGS3001, message, project.toString(), Operation.WRITE, Layer.AUDIT, "audit",
                Map.of(PROJECT, shown(project), COUNT, Integer.toString(writes.size()), FILES, String.join(", ", shown)));
    }

    /** Relative to the workspace root when inside it. */
    private String shown(Path p) {
        return p.startsWith(workspaceRoot) && !p.equals(workspaceRoot) ? workspaceRoot.relativize(p).toString()
                : p.toString();
    }
}
