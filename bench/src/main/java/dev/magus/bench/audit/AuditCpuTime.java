package dev.magus.bench.audit;

import dev.magus.bench.Fixtures;
import dev.magus.landlock.sys.FanotifyWatcher;
import dev.magus.policy.watch.ChangeWatcher;
import dev.magus.policy.control.ControlFiles;
import dev.magus.policy.path.DirectoryReader;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.audit.AuditCaches;
import dev.magus.workspace.audit.ControlFileAudit;
import dev.magus.workspace.audit.ControlFilesAction;
import dev.magus.workspace.audit.Readers;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The control-file audit's cost on the 50 000-file tree of {@link ControlFileAuditBench}, by
 * the measuring thread's own CPU time as well as wall time: on a machine shared with other
 * builds the wall time counts the waits for a core, which the CPU time does not (see
 * {@code CpuTime}). Prints the median and the best of {@code rounds} operations of each kind,
 * and the before and after passes' own CPU medians. "fanotify" rows learn what the run changed
 * from the kernel's events ({@code FanotifyWatcher}: needs root), the others stamp every
 * directory after the run; the last row is fanotify's own cost per run (init, mark, drain,
 * close) with nothing else.
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
            System.out.println("load average at start: " + loadAverage());
            System.out.printf("| operation (%d files, %d directories) | CPU median ms | CPU best ms | wall median ms | wall best ms | before CPU median ms | after CPU median ms |%n",
                    packages * ControlFileAuditBench.DIRS_PER_PACKAGE * ControlFileAuditBench.FILES_PER_DIR,
                    packages * ControlFileAuditBench.DIRS_PER_PACKAGE);
            System.out.println("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
            for (String reader : List.of("native", "native+fanotify", "java")) {
                boolean events = reader.endsWith("+fanotify");
                DirectoryReader r = reader.startsWith("native") ? ControlFileAuditBench.nativeReader() : Readers.java();
                ControlFileAudit inMemory = ControlFileAudit.of(ControlFiles.of(ws, List.of(ws.resolve(".git"))), r, new AuditCaches())
                        .watchingWith(events ? Optional.of(new FanotifyWatcher()) : Optional.empty());
                int n = reader.startsWith("native") ? rounds : Math.max(3, rounds / 5);
                for (String mode : List.of("warm", "state", "cold")) {
                    boolean cold = !mode.equals("warm");
                    // "state": every round a new process as far as the audit knows, starting from the state dir's walk.
                    ControlFileAudit audit = mode.equals("state") ? inMemory.keepingWalksIn(new StateDir(state)) : inMemory;
                    long[] cpu = new long[n];
                    long[] wall = new long[n];
                    long[] beforeCpu = new long[n];
                    long[] afterCpu = new long[n];
                    for (int i = -3; i < n; i++) {
                        if (cold) {
                            audit = audit.withCaches(new AuditCaches());
                        }
                        long c0 = mx.getCurrentThreadCpuTime();
                        long w0 = System.nanoTime();
                        ControlFileAudit.Baseline baseline = audit.before();
                        long cb = mx.getCurrentThreadCpuTime();
                        ControlFileAudit.Report report = baseline.after(ControlFilesAction.RESTORE);
                        long c1 = mx.getCurrentThreadCpuTime();
                        if (events && !baseline.afterPass().orElseThrow().events()) {
                            throw new IllegalStateException("the after pass did not use fanotify: "
                                    + baseline.afterPass().get().detail() + " (run as root)");
                        }
                        long w1 = System.nanoTime();
                        if (report.changed()) {
                            throw new IllegalStateException("nothing changed, yet: " + report.diagnostics());
                        }
                        if (i >= 0) {
                            cpu[i] = c1 - c0;
                            wall[i] = w1 - w0;
                            beforeCpu[i] = cb - c0;
                            afterCpu[i] = c1 - cb;
                        }
                    }
                    Arrays.sort(cpu);
                    Arrays.sort(wall);
                    Arrays.sort(beforeCpu);
                    Arrays.sort(afterCpu);
                    System.out.printf("| before+after, %s reader, %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |%n", reader,
                            switch (mode) {
                                case "warm" -> "warm (rescan before, walk kept in the process)";
                                case "state" -> "next process (rescan before, walk kept in the state dir)";
                                default -> "cold (full walk before)";
                            },
                            cpu[n / 2] / 1e6, cpu[0] / 1e6, wall[n / 2] / 1e6, wall[0] / 1e6,
                            beforeCpu[n / 2] / 1e6, afterCpu[n / 2] / 1e6);
                }
            }
            fanotifyAlone(ws, rounds, mx);
            System.out.println("load average at end: " + loadAverage());
        } finally {
            Fixtures.delete(root);
        }
    }

    /** fanotify's own cost per run: init, a filesystem mark, fstatfs, the drain of whatever came, close. */
    private static void fanotifyAlone(Path ws, int rounds, ThreadMXBean mx) {
        FanotifyWatcher w = new FanotifyWatcher();
        long[] cpu = new long[rounds];
        long[] wall = new long[rounds];
        int events = 0;
        for (int i = -3; i < rounds; i++) {
            long c0 = mx.getCurrentThreadCpuTime();
            long w0 = System.nanoTime();
            ChangeWatcher.Started s = w.start(List.of(ws));
            if (!(s instanceof ChangeWatcher.Watching watching)) {
                System.out.println("| fanotify alone | refused: " + ((ChangeWatcher.Refused) s).reason() + " | | | | | |");
                return;
            }
            ChangeWatcher.Drained d = watching.drain();
            watching.close();
            long c1 = mx.getCurrentThreadCpuTime();
            long w1 = System.nanoTime();
            if (d instanceof ChangeWatcher.Events e) {
                events += e.events().size();
            }
            if (i >= 0) {
                cpu[i] = c1 - c0;
                wall[i] = w1 - w0;
            }
        }
        Arrays.sort(cpu);
        Arrays.sort(wall);
        System.out.printf("| fanotify alone (init, mark, drain, close; %d events from other processes in all) | %.2f | %.2f | %.2f | %.2f | | |%n",
                events, cpu[rounds / 2] / 1e6, cpu[0] / 1e6, wall[rounds / 2] / 1e6, wall[0] / 1e6);
    }

    private static String loadAverage() {
        try {
            return java.nio.file.Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }
}
