package dev.magus.bench.audit;

import dev.magus.bench.Fixtures;
import dev.magus.policy.path.DirectoryReader;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.audit.AuditCaches;
import dev.magus.workspace.audit.DescendantAudit;
import dev.magus.workspace.audit.Readers;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

/**
 * The descendant audit's halves on {@link DescendantAuditBench}'s tree, by CPU time as well as
 * wall time (on a shared machine the wall time counts waits for a core). The CPU time is the sum
 * over every Java thread ({@code ThreadMXBean.getThreadCpuTime}), since the stamps after the run
 * are taken on every core; the JIT's and the collector's threads are not counted. Prints the
 * median and the best of {@code rounds}.
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.magus.bench.audit.DescendantCpuTime [rounds] [packages]</pre>
 */
public final class DescendantCpuTime {
    private DescendantCpuTime() {
    }

    public static void main(String[] args) throws InterruptedException {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        int packages = args.length > 1 ? Integer.parseInt(args[1]) : 500;
        Path root = Fixtures.tempRoot("magus-bench-descendants-");
        try {
            Path ws = DescendantAuditBench.tree(root, packages);
            StateDir state = new StateDir(Fixtures.dirs(root.resolve("state")));
            Thread.sleep(2_200);
            System.out.printf("| operation (%d files, %d directories) | CPU median ms (all threads) | CPU best ms | wall median ms | wall best ms |%n",
                    packages * ControlFileAuditBench.DIRS_PER_PACKAGE * ControlFileAuditBench.FILES_PER_DIR,
                    packages * ControlFileAuditBench.DIRS_PER_PACKAGE);
            System.out.println("| --- | ---: | ---: | ---: | ---: |");
            for (String reader : List.of("native", "java")) {
                DirectoryReader r = reader.equals("native") ? ControlFileAuditBench.nativeReader() : Readers.java();
                DescendantAudit kept = DescendantAudit.of(ws, List.of(Path.of("api")), r, new AuditCaches()).keepingWalksIn(state);
                DescendantAudit bare = DescendantAudit.of(ws, List.of(Path.of("api")), r, new AuditCaches());
                int n = reader.equals("native") ? rounds : Math.max(3, rounds / 5);
                DescendantAudit.Baseline baseline = kept.before();
                // Writes the walk to the state dir, as every run's end does.
                unchanged(baseline.after());
                measure(reader, "before, walk kept in the process", n, kept::before);
                measure(reader, "before, walk read from the state dir (a new process)", n, () -> {
                    return kept.withCaches(new AuditCaches()).before();
                });
                measure(reader, "before, no kept walk (full walk)", n, () -> {
                    return bare.withCaches(new AuditCaches()).before();
                });
                measure(reader, "after (lstat per directory and per file, walk saved)", n, () -> unchanged(baseline.after()));
                measure(reader, "before+after, a new process (every `magus run`)", n, () -> {
                    return unchanged(kept.withCaches(new AuditCaches()).before().after());
                });
            }
        } finally {
            Fixtures.delete(root);
        }
    }

    /** CPU time of every live Java thread, nanoseconds (a thread that ended meanwhile drops out; the common pool's stay). */
    private static long threadsCpu() {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (long id : mx.getAllThreadIds()) {
            long t = mx.getThreadCpuTime(id);
            if (t > 0) {
                sum += t;
            }
        }
        return sum;
    }

    private static DescendantAudit.Report unchanged(DescendantAudit.Report r) {
        if (r.wrote()) {
            throw new IllegalStateException("nothing changed, yet: " + r.diagnostics());
        }
        return r;
    }

    private static void measure(String reader, String what, int n, Supplier<Object> op) {
        long[] cpu = new long[n];
        long[] wall = new long[n];
        for (int i = -3; i < n; i++) {
            long c0 = threadsCpu();
            long w0 = System.nanoTime();
            op.get();
            long c1 = threadsCpu();
            long w1 = System.nanoTime();
            if (i >= 0) {
                cpu[i] = c1 - c0;
                wall[i] = w1 - w0;
            }
        }
        Arrays.sort(cpu);
        Arrays.sort(wall);
        System.out.printf("| %s reader, %s | %.1f | %.1f | %.1f | %.1f |%n", reader, what, cpu[n / 2] / 1e6, cpu[0] / 1e6,
                wall[n / 2] / 1e6, wall[0] / 1e6);
    }
}
