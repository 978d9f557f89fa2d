package dev.magus.bench.audit;

import dev.magus.bench.Fixtures;
import dev.magus.policy.fs.AccessMode;
import dev.magus.policy.fs.Rule;
import dev.magus.policy.fs.Ruleset;
import dev.magus.policy.lease.LeaseJob;
import dev.magus.policy.lease.LeaseNarrowing;
import dev.magus.policy.lease.LeaseScope;
import dev.magus.policy.lease.Narrowing;
import dev.magus.policy.lease.Tree;
import dev.magus.policy.lease.WriteGlob;
import dev.magus.policy.path.DirectoryReader;
import dev.magus.workspace.audit.LeaseAudit;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The lease audit's cost for the glob {@code docs/*.md}, whose directory the kernel grants
 * whole: {@code docs/} of 10, 100 and 1 000 directories of ten files each, every other one
 * named {@code *.md} (which the glob covers whole, so the audit does not enter it) and the
 * rest not (each file read before the run and stamped after it, read again only when its
 * stamp moved), beside the 50 000-file tree of {@link ControlFileAuditBench}, which the lease
 * audit never reads. By the measuring thread's CPU time (see {@link AuditCpuTime}): the median
 * and best of {@code rounds} before-and-after pairs of a run that changed nothing, with the
 * {@code getdents64} reader.
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.magus.bench.audit.LeaseAuditCpuTime [rounds]</pre>
 */
public final class LeaseAuditCpuTime {
    private LeaseAuditCpuTime() {
    }

    public static void main(String[] args) throws InterruptedException {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        Path root = Fixtures.tempRoot("magus-bench-lease-audit-");
        try {
            Path ws = ControlFileAuditBench.tree(root, 500);
            DirectoryReader reader = ControlFileAuditBench.nativeReader();
            ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            System.out.println("| docs/ under docs/*.md (beside 50 000 other files) | CPU median ms | CPU best ms | wall median ms | wall best ms |");
            System.out.println("| --- | ---: | ---: | ---: | ---: |");
            int made = 0;
            for (int dirs : new int[] {10, 100, 1_000}) {
                for (; made < dirs; made++) {
                    for (int f = 0; f < 10; f++) {
                        Fixtures.file(ws.resolve("docs/d-" + made + (made % 2 == 0 ? ".md" : "") + "/f-" + f), "text " + f + "\n");
                    }
                }
                // At rest past the slack, as a checkout between runs is.
                Thread.sleep(2_200);
                LeaseAudit audit = LeaseAudit.of(List.of(lease(ws, root)), reader);
                long[] cpu = new long[rounds];
                long[] wall = new long[rounds];
                for (int i = -3; i < rounds; i++) {
                    long c0 = mx.getCurrentThreadCpuTime();
                    long w0 = System.nanoTime();
                    LeaseAudit.Report report = audit.before().after("bench");
                    long c1 = mx.getCurrentThreadCpuTime();
                    long w1 = System.nanoTime();
                    if (report.failing()) {
                        throw new IllegalStateException("nothing changed, yet: " + report.diagnostics());
                    }
                    if (i >= 0) {
                        cpu[i] = c1 - c0;
                        wall[i] = w1 - w0;
                    }
                }
                Arrays.sort(cpu);
                Arrays.sort(wall);
                System.out.printf("| %d directories, %d files (%d outside the glob: read before, stamped after) | %.2f | %.2f | %.2f | %.2f |%n",
                        dirs, dirs * 10, dirs / 2 * 10, cpu[rounds / 2] / 1e6, cpu[0] / 1e6, wall[rounds / 2] / 1e6, wall[0] / 1e6);
            }
        } finally {
            Fixtures.delete(root);
        }
    }

    /** A delegated job writing {@code docs/*.md} in {@code ws}: the kernel gets all of {@code docs/}. */
    private static Narrowing.Narrowed lease(Path ws, Path root) {
        LeaseJob job = new LeaseJob("2", true, true, List.of(WriteGlob.parse("docs/*.md", "bench")),
                Optional.of(root.resolve("state/jobs.db")));
        LeaseScope scope = new LeaseScope(ws, root.resolve("cache"), root.resolve("temp"), root.resolve("state"));
        Narrowing n = LeaseNarrowing.plan(Ruleset.of(List.of(new Rule(ws, AccessMode.RWX, "bench"))), job, scope, Tree.real());
        return (Narrowing.Narrowed) n;
    }
}
