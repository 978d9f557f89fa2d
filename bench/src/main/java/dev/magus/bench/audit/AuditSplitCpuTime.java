package dev.magus.bench.audit;

import dev.magus.bench.Fixtures;
import dev.magus.policy.control.ControlFiles;
import dev.magus.policy.path.DirectoryReader;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.audit.AuditCaches;
import dev.magus.workspace.audit.ControlFileAudit;
import dev.magus.workspace.audit.ControlFilesAction;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/**
 * Where a command-line run's control-file audit spends its CPU, on {@link ControlFileAuditBench}'s
 * tree with the native reader and the walk kept in the state dir (what every {@code magus run}
 * does): the before side, the after side, and, for the floor, one bare {@code lstat} through the
 * same reader of every directory the audit stamps. By the measuring thread's CPU time; median and
 * best of {@code rounds}.
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.magus.bench.audit.AuditSplitCpuTime [rounds]</pre>
 */
public final class AuditSplitCpuTime {
    private AuditSplitCpuTime() {
    }

    public static void main(String[] args) throws InterruptedException {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        Path root = Fixtures.tempRoot("magus-bench-audit-split-");
        try {
            Path ws = ControlFileAuditBench.tree(root, 500);
            Thread.sleep(2_200);
            DirectoryReader reader = ControlFileAuditBench.nativeReader();
            List<String> dirs;
            try (Stream<Path> s = Files.walk(ws)) {
                dirs = s.filter(p -> Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS))
                        .map(Path::toString).toList();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            ControlFileAudit audit = ControlFileAudit.of(ControlFiles.of(ws, List.of(ws.resolve(".git"))), reader, new AuditCaches())
                    .keepingWalksIn(new StateDir(root.resolve("state")));
            ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            long[] before = new long[rounds];
            long[] after = new long[rounds];
            long[] bare = new long[rounds];
            for (int i = -3; i < rounds; i++) {
                audit = audit.withCaches(new AuditCaches());
                long c0 = mx.getCurrentThreadCpuTime();
                ControlFileAudit.Baseline baseline = audit.before();
                long c1 = mx.getCurrentThreadCpuTime();
                ControlFileAudit.Report report = baseline.after(ControlFilesAction.RESTORE);
                long c2 = mx.getCurrentThreadCpuTime();
                for (String d : dirs) {
                    if (reader.stat(d).isEmpty()) {
                        throw new IllegalStateException("cannot stat " + d);
                    }
                }
                long c3 = mx.getCurrentThreadCpuTime();
                if (report.changed()) {
                    throw new IllegalStateException("nothing changed, yet: " + report.diagnostics());
                }
                if (i >= 0) {
                    before[i] = c1 - c0;
                    after[i] = c2 - c1;
                    bare[i] = c3 - c2;
                }
            }
            Arrays.sort(before);
            Arrays.sort(after);
            Arrays.sort(bare);
            System.out.printf("| %d directories, walk kept in the state dir | CPU median ms | CPU best ms |%n", dirs.size());
            System.out.println("| --- | ---: | ---: |");
            System.out.printf("| before (rescan of the kept walk) | %.1f | %.1f |%n", before[rounds / 2] / 1e6, before[0] / 1e6);
            System.out.printf("| after (rescan, compare) | %.1f | %.1f |%n", after[rounds / 2] / 1e6, after[0] / 1e6);
            System.out.printf("| one bare lstat per directory (the floor of one side) | %.1f | %.1f |%n", bare[rounds / 2] / 1e6,
                    bare[0] / 1e6);
        } finally {
            Fixtures.delete(root);
        }
    }
}
