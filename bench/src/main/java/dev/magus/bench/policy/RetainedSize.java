package dev.magus.bench.policy;

import dev.magus.bench.check.SyntheticPolicy;
import dev.magus.policy.Policy;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Path;

/**
 * The retained heap of an N-rule policy, measured without an agent: collect, read the heap in
 * use, build {@code copies} independent policies and keep them reachable, collect again, read
 * again; the difference divided by {@code copies} is one policy's retained size (every object
 * it keeps: rules, paths, their strings, the index nodes and maps). Run it with
 * {@code -XX:+UseSerialGC} so {@code System.gc()} is a full, compacting collection.
 *
 * <pre>java -XX:+UseSerialGC -Xmx1g -cp bench/target/benchmarks.jar dev.magus.bench.policy.RetainedSize [rules] [copies]</pre>
 */
public final class RetainedSize {
    private RetainedSize() {
    }

    public static void main(String[] args) throws InterruptedException {
        int rules = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int copies = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        Path ws = PolicyMemoryBench.WORKSPACE;
        Path home = PolicyMemoryBench.HOME;

        // Warm the classes and their statics so they are not counted as the policies' size.
        SyntheticPolicy.policy(rules, ws, home);
        long before = usedAfterGc();
        Policy[] kept = new Policy[copies];
        for (int i = 0; i < copies; i++) {
            kept[i] = SyntheticPolicy.policy(rules, ws, home);
        }
        long after = usedAfterGc();
        long perPolicy = (after - before) / copies;
        System.out.printf("retained size of a %d-rule policy: %d bytes (%.1f KiB, %.1f bytes/rule), mean of %d copies%n",
                rules, perPolicy, perPolicy / 1024.0, (double) perPolicy / rules, copies);
        System.out.println("kept " + kept.length + " policies of " + kept[copies - 1].rules().size() + " rules");
    }

    private static long usedAfterGc() throws InterruptedException {
        MemoryMXBean mem = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        // Repeat until the figure settles: finalizers, reference processing and soft references clear in rounds.
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(50);
            used = Math.min(used, mem.getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
