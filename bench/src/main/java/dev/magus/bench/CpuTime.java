package dev.magus.bench;

import dev.magus.bench.check.SyntheticPolicy;
import dev.magus.bench.env.HostEnvironment;
import dev.magus.bench.path.LinkTree;
import dev.magus.bench.path.RealPath;
import dev.magus.bench.path.Scenario;
import dev.magus.env.scrub.Scrubber;
import dev.magus.policy.Policy;
import dev.magus.policy.PolicyChecker;
import dev.magus.policy.fs.Access;
import dev.magus.policy.fs.Ruleset;
import dev.magus.policy.path.PathResolver;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A cross-check of the figures the targets name, timed by the benchmark thread's own CPU time
 * ({@link ThreadMXBean#getCurrentThreadCpuTime}, user + system) next to wall-clock time. On a
 * machine whose cores are shared with other work a thread waits for a core, which wall-clock
 * (and so JMH) counts and CPU time does not: ops per CPU-second is "per core" as the targets
 * mean it. JMH's figures stay the primary ones; this says how much of their spread is waiting.
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.magus.bench.CpuTime [seconds per measurement, default 3]</pre>
 */
public final class CpuTime {
    private CpuTime() {
    }

    /** Written so the JIT cannot drop the measured work. */
    static volatile long sink;

    interface Op {
        long run() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (!threads.isCurrentThreadCpuTimeSupported()) {
            System.out.println("thread CPU time is not supported by this JVM; nothing measured");
            return;
        }
        threads.setThreadCpuTimeEnabled(true);

        Path root = Fixtures.tempRoot("magus-bench-cpu-");
        List<AutoCloseable> closing = new ArrayList<>();
        try {
            Path home = Fixtures.dirs(root.resolve("home/u"));
            Path ws = Fixtures.dirs(root.resolve("ws"));
            Path file = Fixtures.file(ws.resolve("src/main/java/dev/magus/App.java"), "class App {}\n");
            Map<String, Op> ops = new LinkedHashMap<>();
            for (int n : new int[]{10, 10_000}) {
                Policy policy = SyntheticPolicy.policy(n, ws, home);
                Ruleset rules = policy.ruleset();
                PathResolver cache = PathResolver.caching(1024);
                PolicyChecker checker = PolicyChecker.of(policy);
                ops.put("lookup, " + n + " rules", () -> rules.permits(file, Access.READ) ? 1 : 0);
                ops.put("cached check, " + n + " rules", () -> cache.resolve(file, ws).resolvedPath()
                        .map(p -> rules.permits(p, Access.READ)).orElse(false) ? 1 : 0);
                ops.put("PolicyChecker.check, " + n + " rules", () -> checker.check(Access.READ, file, ws).allowed() ? 1 : 0);
            }
            // The kernel-first resolver answers once the natives are loaded, as in a process that spawns.
            dev.magus.landlock.sys.Natives.require();
            for (String s : List.of("c6-l2-abs", "c6-l2-rel")) {
                LinkTree tree = LinkTree.build(Scenario.parse(s));
                closing.add(tree);
                PathResolver resolver = new PathResolver();
                PathResolver walk = PathResolver.walking();
                ops.put("resolve " + s + ", PathResolver (kernel first)", () -> resolver.resolve(tree.request(), tree.cwd()).hashCode());
                ops.put("resolve " + s + ", PathResolver.walking()", () -> walk.resolve(tree.request(), tree.cwd()).hashCode());
                ops.put("resolve " + s + ", toRealPath", () -> RealPath.resolve(tree.request()).hashCode());
            }
            Map<String, String> host = HostEnvironment.of(200);
            Scrubber scrubber = HostEnvironment.scrubber();
            ops.put("scrub, 200 variables", () -> scrubber.scrub(host).dropped());

            System.out.printf(Locale.ROOT, "%d s per measurement after %d s of warm-up, one thread%n%n", (long) seconds, (long) seconds);
            System.out.println("| operation | ops per CPU-second | ns per op (CPU) | ops per wall-second | CPU / wall |");
            System.out.println("| --- | ---: | ---: | ---: | ---: |");
            for (Map.Entry<String, Op> e : ops.entrySet()) {
                measure(e.getValue(), seconds, threads); // warm-up
                double[] r = measure(e.getValue(), seconds, threads);
                System.out.printf(Locale.ROOT, "| %s | %,.0f | %,.0f | %,.0f | %.0f %% |%n",
                        e.getKey(), r[0] / r[1] * 1e9, r[1] / r[0], r[0] / r[2] * 1e9, 100 * r[1] / r[2]);
            }
        } finally {
            for (AutoCloseable c : closing) {
                c.close();
            }
            Fixtures.delete(root);
        }
    }

    /** Runs {@code op} in batches for about {@code seconds} of wall time: {ops, cpu ns, wall ns}. */
    static double[] measure(Op op, double seconds, ThreadMXBean threads) throws Exception {
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        long ops = 0;
        long acc = 0;
        long cpu0 = threads.getCurrentThreadCpuTime();
        long wall0 = System.nanoTime();
        long wall;
        do {
            for (int i = 0; i < 256; i++) {
                acc += op.run();
            }
            ops += 256;
            wall = System.nanoTime();
        } while (wall < deadline);
        long cpu = threads.getCurrentThreadCpuTime() - cpu0;
        sink = acc;
        return new double[]{ops, cpu, wall - wall0};
    }
}
