package dev.magus.bench.spawn;

import dev.magus.bench.Fixtures;
import dev.magus.events.Mode;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.launch.Child;
import dev.magus.landlock.launch.Confinement;
import dev.magus.landlock.launch.Launcher;
import dev.magus.landlock.launch.Spawn;
import dev.magus.landlock.launch.SpawnRequest;
import dev.magus.orchestrator.contain.Containment;
import dev.magus.orchestrator.contain.RunCgroups;
import dev.magus.orchestrator.orphans.Watchdog;
import dev.magus.policy.path.PathResolver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a run's own cgroup costs, side by side with the same confined spawn without one, in one
 * JVM, interleaved: (b) the confined launcher starts {@code /bin/true} and reaps it; (g) the
 * same, born in a cgroup of its own ({@link RunCgroups#spawn}: the cgroup made, the launch
 * thread moved into it, the child's {@code /proc/PID/cgroup} read) and, once reaped, the
 * cgroup ended and removed ({@link RunCgroups#end}). The difference of the medians is what
 * containment by cgroup adds to a run.
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.magus.bench.spawn.CgroupCost [--rounds 300] [--warmup 50] [--seed 1]</pre>
 */
public final class CgroupCost {
    private CgroupCost() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = SpawnCompare.options(args);
        int rounds = Integer.parseInt(opts.getOrDefault("rounds", "300"));
        int warmup = Integer.parseInt(opts.getOrDefault("warmup", "50"));
        long seed = Long.parseLong(opts.getOrDefault("seed", "1"));
        Containment here = RunCgroups.containment();
        if (!(here instanceof Containment.ByCgroup) || LandlockProbe.kernel().abi() <= 0) {
            System.out.println("nothing to measure here: " + here.describe() + ", Landlock ABI " + LandlockProbe.kernel().abi());
            return;
        }
        Path root = Fixtures.tempRoot("magus-cgroup-cost-");
        try (Watchdog watchdog = new Watchdog();
                Confinement c = Confinement.prepare(Mode.BEST_EFFORT, SpawnCompare.comparableRules(Fixtures.dirs(root.resolve("ws"))),
                LandlockProbe.kernel())) {
            Path ws = root.resolve("ws");
            Path exe = new PathResolver().resolve(Path.of("/bin/true")).resolvedPath().orElseThrow();
            SpawnRequest request = SpawnRequest.of(exe, List.of(), new TreeMap<>(Map.of("PATH", "/usr/bin:/bin")), ws);
            Launcher launcher = Launcher.get();
            Map<String, SpawnCompare.Method> methods = new LinkedHashMap<>();
            methods.put("b", () -> once(launcher, request, c, null, watchdog));
            long[] runs = {0};
            methods.put("g", () -> once(launcher, request, c, "cost-" + runs[0]++, watchdog));
            Map<String, List<SpawnCompare.Sample>> samples = SpawnCompare.run(methods, rounds, warmup, seed);
            SpawnCompare.Stats b = stats(samples.get("b"));
            SpawnCompare.Stats g = stats(samples.get("g"));
            System.out.printf(Locale.ROOT, "a confined run's own cgroup: %d interleaved rounds after %d warm-up rounds (%s)%n%n",
                    rounds, warmup, here.describe());
            System.out.println("| method | median µs | p90 µs | mean µs |");
            System.out.println("| --- | ---: | ---: | ---: |");
            row("(b) confined spawn of /bin/true, reaped", b);
            row("(g) the same in a cgroup of its own, ended and removed", g);
            System.out.printf(Locale.ROOT, "%ncgroup cost per run (g - b): median %.0f µs, p90 %.0f µs%n",
                    (g.median() - b.median()) / 1000, (g.p90() - b.p90()) / 1000);
        } finally {
            Fixtures.delete(root);
        }
    }

    /** One spawn and reap; with a run id, in a cgroup of that run's own, ended after the reap. */
    private static SpawnCompare.Sample once(Launcher launcher, SpawnRequest request, Confinement c, String runId,
            Watchdog watchdog) {
        long t0 = System.nanoTime();
        Spawn s = runId == null ? launcher.spawn(request, c) : RunCgroups.spawn(runId, launcher, request, c, null, watchdog);
        long t1 = System.nanoTime();
        if (!(s instanceof Spawn.Started started)) {
            throw new IllegalStateException("not started: " + s);
        }
        try (Child child = started.child()) {
            int status = child.waitFor().status();
            if (status != 0) {
                throw new IllegalStateException("/bin/true exited " + status);
            }
        }
        if (runId != null && (!RunCgroups.contained(runId) || !RunCgroups.end(runId, Duration.ofSeconds(2), watchdog).clean())) {
            throw new IllegalStateException("run " + runId + " was not contained, or its cgroup did not end clean");
        }
        return new SpawnCompare.Sample(t1 - t0, System.nanoTime() - t0);
    }

    private static SpawnCompare.Stats stats(List<SpawnCompare.Sample> samples) {
        return SpawnCompare.Stats.of(samples.stream().mapToLong(SpawnCompare.Sample::exit).toArray());
    }

    private static void row(String label, SpawnCompare.Stats s) {
        System.out.printf(Locale.ROOT, "| %s | %.0f | %.0f | %.0f |%n", label, s.median() / 1000, s.p90() / 1000, s.mean() / 1000);
    }
}
