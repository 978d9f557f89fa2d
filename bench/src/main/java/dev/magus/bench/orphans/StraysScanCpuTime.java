package dev.magus.bench.orphans;

import dev.magus.orchestrator.orphans.Strays;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Stream;

/**
 * What the stray collection at the end of every run costs: one pass over {@code /proc} (each
 * process's {@code stat}, and the {@code environ} of magus's own children), by the measuring
 * thread's CPU time. The run's group is one that no longer exists, as at a run's end once the
 * group is killed, so each call is exactly one pass. Prints the median, best and worst of
 * {@code rounds}, and how many processes the host had.
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.magus.bench.orphans.StraysScanCpuTime [rounds]</pre>
 */
public final class StraysScanCpuTime {
    private StraysScanCpuTime() {
    }

    public static void main(String[] args) throws IOException {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        if (!Strays.adopt()) {
            throw new IllegalStateException("cannot become the subreaper here: nothing would be collected");
        }
        // A pid that is free now: a group that does not exist, as after the kill.
        long gone = ProcessHandle.current().pid() + 1_000_000;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long[] cpu = new long[rounds];
        for (int i = -20; i < rounds; i++) {
            long c0 = mx.getCurrentThreadCpuTime();
            Strays.collect("bench-" + i, gone, Duration.ofSeconds(1));
            long c1 = mx.getCurrentThreadCpuTime();
            if (i >= 0) {
                cpu[i] = c1 - c0;
            }
        }
        Arrays.sort(cpu);
        long processes;
        try (Stream<Path> s = Files.list(Path.of("/proc"))) {
            processes = s.filter(p -> p.getFileName().toString().matches("[0-9]+")).count();
        }
        System.out.printf("| Strays.collect, one /proc pass (%d processes) | CPU median %.3f ms | best %.3f ms | worst %.3f ms |%n",
                processes, cpu[rounds / 2] / 1e6, cpu[0] / 1e6, cpu[rounds - 1] / 1e6);
    }
}
