package dev.magus.bench.audit;

import dev.magus.bench.Fixtures;
import dev.magus.policy.control.ControlFiles;
import dev.magus.policy.path.DirectoryReader;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.audit.ControlFileAudit;
import dev.magus.workspace.audit.ControlFilesAction;
import dev.magus.workspace.audit.Readers;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * The control-file audit's cost on the 50 000-file tree of {@link ControlFileAuditBench}, by
 * the measuring thread's own CPU time as well as wall time: on a machine shared with other
 * builds the wall time counts the waits for a core, which the CPU time does not (see
 * {@code CpuTime}). Prints the median and the best of {@code rounds} operations of each kind.
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.magus.bench.audit.AuditCpuTime [rounds] [packages]</pre>
 */
public final class AuditCpuTime {
    private AuditCpuTime() {
    }

    public static void main(String[] args) throws InterruptedException {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        int packages = args.length > 1 ? Integer.parseInt(args[1]) : 500;
        Path root = Fixtures.tempRoot("magus-bench-audit-");
        Path state = root.resolve("state");
        try {
            Path ws = ControlFileAuditBench.tree(root, packages);
            Thread.sleep(2_200);
            ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            System.out.printf("| operation (%d files, %d directories) | CPU median ms | CPU best ms | wall median ms | wall best ms |%n",
                    packages * ControlFileAuditBench.DIRS_PER_PACKAGE * ControlFileAuditBench.FILES_PER_DIR,
                    packages * ControlFileAuditBench.DIRS_PER_PACKAGE);
            System.out.println("| --- | ---: | ---: | ---: | ---: |");
            for (String reader : List.of("native", "java")) {
                DirectoryReader r = reader.equals("native") ? ControlFileAuditBench.nativeReader() : Readers.java();
                ControlFileAudit inMemory = ControlFileAudit.of(ControlFiles.of(ws, List.of(ws.resolve(".git"))), r);
                int n = reader.equals("native") ? rounds : Math.max(3, rounds / 5);
                for (String mode : List.of("warm", "state", "cold")) {
                    boolean cold = !mode.equals("warm");
                    // "state": every round a new process as far as the audit knows, starting from the state dir's walk.
                    ControlFileAudit audit = mode.equals("state") ? inMemory.keepingWalksIn(new StateDir(state)) : inMemory;
                    long[] cpu = new long[n];
                    long[] wall = new long[n];
                    for (int i = -3; i < n; i++) {
                        if (cold) {
                            ControlFileAudit.forgetWalks();
                        }
                        long c0 = mx.getCurrentThreadCpuTime();
                        long w0 = System.nanoTime();
                        ControlFileAudit.Report report = audit.before().after(ControlFilesAction.RESTORE);
                        long c1 = mx.getCurrentThreadCpuTime();
                        long w1 = System.nanoTime();
                        if (report.changed()) {
                            throw new IllegalStateException("nothing changed, yet: " + report.diagnostics());
                        }
                        if (i >= 0) {
                            cpu[i] = c1 - c0;
                            wall[i] = w1 - w0;
                        }
                    }
                    Arrays.sort(cpu);
                    Arrays.sort(wall);
                    System.out.printf("| before+after, %s reader, %s | %.1f | %.1f | %.1f | %.1f |%n", reader,
                            switch (mode) {
                                case "warm" -> "warm (rescan before, walk kept in the process)";
                                case "state" -> "next process (rescan before, walk kept in the state dir)";
                                default -> "cold (full walk before)";
                            },
                            cpu[n / 2] / 1e6, cpu[0] / 1e6, wall[n / 2] / 1e6, wall[0] / 1e6);
                }
            }
        } finally {
            Fixtures.delete(root);
        }
    }
}
