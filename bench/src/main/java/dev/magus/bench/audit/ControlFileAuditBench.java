package dev.magus.bench.audit;

import dev.magus.bench.Fixtures;
import dev.magus.landlock.sys.GetdentsReader;
import dev.magus.policy.control.ControlFiles;
import dev.magus.policy.path.DirectoryReader;
import dev.magus.workspace.audit.AuditCaches;
import dev.magus.workspace.audit.ControlFileAudit;
import dev.magus.workspace.audit.ControlFilesAction;
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
 * The control-file audit of one run on a {@code node_modules}-like workspace of 50 000 files
 * in 5 000 directories. {@code beforeAndAfter} is what a sandboxed run pays when the process
 * already walked the workspace (a server, a program running several commands, the second run
 * of a process): the rescan before the spawn, and the one after it of a run that changed
 * nothing; {@code before} and {@code after} are its two halves. {@code coldBeforeAndAfter}
 * is a process's first run, as every {@code magus run} from the command line is: the full walk
 * before, the rescan after. {@code reader} is the
 * {@code getdents64} reader ({@code native}) or the pure-Java fallback ({@code java}).
 *
 * <p>The tree is a git checkout's shape: {@code magus.yaml}, {@code .envrc}, {@code .git/}
 * with 14 sample hooks, {@code config} and {@code info/exclude}, a nested
 * {@code .vscode/tasks.json}, and 500 packages of 10 directories of 10 files. The set-up
 * waits out the audit's slack ({@code Scan.SLACK_NANOS}, 2 s) so that the directories it
 * just created are not all listed again after the run, as they would not be in a workspace
 * at rest.
 */
@State(Scope.Benchmark)
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class ControlFileAuditBench {
    static final int DIRS_PER_PACKAGE = 10;
    static final int FILES_PER_DIR = 10;

    @Param({"native", "java"})
    public String reader;

    /** Packages of 10 directories of 10 files: 500 is the 50 000-file tree; the CI smoke runs 5. */
    @Param({"500"})
    public int packages;

    private Path root;
    private ControlFileAudit audit;
    private ControlFileAudit.Baseline baseline;

    @Setup(Level.Trial)
    public void setUp() throws InterruptedException {
        root = Fixtures.tempRoot("magus-bench-audit-");
        Path ws = tree(root, packages);
        DirectoryReader r = reader.equals("native") ? nativeReader() : Readers.java();
        audit = ControlFileAudit.of(ControlFiles.of(ws, List.of(ws.resolve(".git"))), r, new AuditCaches());
        // Let the slack pass: a workspace at rest was not written in the last 2 s.
        Thread.sleep(2_200);
        baseline = audit.before();
        if (baseline.directories() < packages * DIRS_PER_PACKAGE || baseline.snapshot().size() < 18) {
            throw new IllegalStateException("the walk found " + baseline.directories() + " directories and "
                    + baseline.snapshot().size() + " control entries");
        }
    }

    /** The fixture: {@code root/ws}, a git checkout's control files and {@code packages} packages. */
    static Path tree(Path root, int packages) {
        Path ws = Fixtures.dirs(root.resolve("ws"));
        Fixtures.file(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        Fixtures.file(ws.resolve(".envrc"), "export A=1\n");
        Fixtures.file(ws.resolve(".git/config"), "[core]\n\tbare = false\n");
        Fixtures.file(ws.resolve(".git/HEAD"), "ref: refs/heads/main\n");
        Fixtures.file(ws.resolve(".git/info/exclude"), "# nothing\n");
        Fixtures.dirs(ws.resolve(".git/objects/pack"));
        Fixtures.dirs(ws.resolve(".git/refs/heads"));
        for (int i = 0; i < 14; i++) {
            Fixtures.file(ws.resolve(".git/hooks/hook-" + i + ".sample"), "#!/bin/sh\n# sample " + i + "\n".repeat(40));
        }
        Fixtures.file(ws.resolve("app/.vscode/tasks.json"), "{}\n");
        for (int p = 0; p < packages; p++) {
            Path pkg = ws.resolve("node_modules/pkg-" + p);
            for (int d = 0; d < DIRS_PER_PACKAGE; d++) {
                Path dir = d == 0 ? pkg : pkg.resolve("sub-" + d);
                for (int f = 0; f < FILES_PER_DIR; f++) {
                    Fixtures.file(dir.resolve("file-" + f + ".js"), "module.exports = " + f + ";\n");
                }
            }
        }
        return ws;
    }

    static DirectoryReader nativeReader() {
        GetdentsReader g = new GetdentsReader();
        if (!g.available()) {
            throw new IllegalStateException("the getdents64 reader is not available here: run with -p reader=java");
        }
        return g;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        Fixtures.delete(root);
    }

    @Benchmark
    public ControlFileAudit.Report beforeAndAfter() {
        return check(audit.before().after(ControlFilesAction.RESTORE));
    }

    @Benchmark
    public ControlFileAudit.Report coldBeforeAndAfter() {
        return check(audit.withCaches(new AuditCaches()).before().after(ControlFilesAction.RESTORE));
    }

    @Benchmark
    public ControlFileAudit.Baseline before() {
        return audit.before();
    }

    @Benchmark
    public ControlFileAudit.Report after() {
        return check(baseline.after(ControlFilesAction.RESTORE));
    }

    private static ControlFileAudit.Report check(ControlFileAudit.Report r) {
        if (r.changed()) {
            throw new IllegalStateException("nothing changed, yet: " + r.diagnostics());
        }
        return r;
    }
}
