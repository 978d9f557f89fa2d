package dev.magus.bench.audit;

import dev.magus.bench.Fixtures;
import dev.magus.policy.path.DirectoryReader;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.audit.AuditCaches;
import dev.magus.workspace.audit.DescendantAudit;
import dev.magus.workspace.audit.Readers;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The descendant-scope audit (MGS3001) of one write-mode dispatch on a workspace whose
 * descendant project {@code api} holds 50 000 files in 5 000 directories (a
 * {@code node_modules}-like tree of 500 packages of 10 directories of 10 files), beside a
 * root project's own files. The run changed nothing, the common case.
 *
 * <ul>
 *   <li>{@code before}: what the run pays before its child starts, the walk kept in the
 *       process (a server, a program): one {@code lstat} per directory;</li>
 *   <li>{@code beforeFromStateDir}: the same for a new process (every {@code magus run} from
 *       the command line): the kept walk read from the state dir, then one {@code lstat} per
 *       directory;</li>
 *   <li>{@code coldBefore}: no kept walk (the first run on these trees): one listing per
 *       directory;</li>
 *   <li>{@code after}: what it pays once the child is gone: one {@code lstat} per directory
 *       and per file, and the walk written to the state dir;</li>
 *   <li>{@code beforeAndAfterFromStateDir}: the whole cost of a command-line run.</li>
 * </ul>
 * The set-up waits out the rescan's slack (2 s) so the tree is at rest.
 */
@State(Scope.Benchmark)
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class DescendantAuditBench {
    @Param({"native", "java"})
    public String reader;

    /** Packages of 10 directories of 10 files: 500 is the 50 000-file tree; the CI smoke runs 5. */
    @Param({"500"})
    public int packages;

    private Path root;
    private DescendantAudit audit;
    private DescendantAudit.Baseline baseline;

    @Setup(Level.Trial)
    public void setUp() throws InterruptedException {
        root = Fixtures.tempRoot("magus-bench-descendants-");
        Path ws = tree(root, packages);
        DirectoryReader r = reader.equals("native") ? ControlFileAuditBench.nativeReader() : Readers.java();
        audit = DescendantAudit.of(ws, List.of(Path.of("api")), r, new AuditCaches())
                .keepingWalksIn(new StateDir(Fixtures.dirs(root.resolve("state"))));
        Thread.sleep(2_200);
        baseline = audit.before();
        // The state dir's walk, as the end of every run writes it: beforeFromStateDir reads it.
        check(baseline.after());
        int files = packages * ControlFileAuditBench.DIRS_PER_PACKAGE * ControlFileAuditBench.FILES_PER_DIR;
        if (baseline.files() < files || baseline.directories() < packages * ControlFileAuditBench.DIRS_PER_PACKAGE) {
            throw new IllegalStateException("the walk found " + baseline.directories() + " directories and "
                    + baseline.files() + " files");
        }
    }

    /** {@code root/ws}: a root project's files, and {@code api} with {@code packages} packages beneath. */
    static Path tree(Path root, int packages) {
        Path ws = Fixtures.dirs(root.resolve("ws"));
        Fixtures.file(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        Fixtures.file(ws.resolve("README.md"), "# root\n");
        Fixtures.file(ws.resolve("api/README.md"), "# api\n");
        for (int p = 0; p < packages; p++) {
            Path pkg = ws.resolve("api/node_modules/pkg-" + p);
            for (int d = 0; d < ControlFileAuditBench.DIRS_PER_PACKAGE; d++) {
                Path dir = d == 0 ? pkg : pkg.resolve("sub-" + d);
                for (int f = 0; f < ControlFileAuditBench.FILES_PER_DIR; f++) {
                    Fixtures.file(dir.resolve("file-" + f + ".js"), "module.exports = " + f + ";\n");
                }
            }
        }
        return ws;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        Fixtures.delete(root);
    }

    @Benchmark
    public DescendantAudit.Baseline before() {
        return audit.before();
    }

    @Benchmark
    public DescendantAudit.Baseline beforeFromStateDir() {
        return audit.withCaches(new AuditCaches()).before();
    }

    @Benchmark
    public DescendantAudit.Baseline coldBefore() {
        return DescendantAudit.of(root.resolve("ws"), List.of(Path.of("api")),
                reader.equals("native") ? ControlFileAuditBench.nativeReader() : Readers.java(), new AuditCaches()).before();
    }

    @Benchmark
    public DescendantAudit.Report after() {
        return check(baseline.after());
    }

    @Benchmark
    public DescendantAudit.Report beforeAndAfterFromStateDir() {
        return check(audit.withCaches(new AuditCaches()).before().after());
    }

    private static DescendantAudit.Report check(DescendantAudit.Report r) {
        if (r.wrote()) {
            throw new IllegalStateException("nothing changed, yet: " + r.diagnostics());
        }
        return r;
    }
}
