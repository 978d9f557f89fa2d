import dev.magus.events.Mode;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.compile.CompiledRuleset;
import dev.magus.landlock.sys.Natives;
import dev.magus.policy.HostFacts;
import dev.magus.policy.Policy;
import dev.magus.policy.PolicyBuilder;
import dev.magus.policy.decl.MergedDecl;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Thread CPU per policy build and per Landlock ruleset compile, for the workspace of
 * {@code server-cpu.sh} (a fake home, no declarations, the core footprint: about 20 paths
 * resolved, 17 rules compiled): the part of a forwarded run this cut.
 *
 * <pre>bench/policy-cpu.sh [runs, default 2000] [warm-up runs, default 2000]</pre>
 */
public final class PolicyCpu {
    public static void main(String[] args) throws Exception {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        int warm = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        Path root = Files.createTempDirectory("magus-policy-cpu-").toRealPath();
        Path home = Files.createDirectories(root.resolve("home"));
        Path ws = Files.createDirectories(root.resolve("ws"));
        Path tmp = Files.createDirectories(root.resolve("tmp/magus-run-1"));
        Files.createDirectories(home.resolve(".cache/magus"));
        Natives.require();
        int abi = LandlockProbe.kernel().abi();
        HostFacts facts = HostFacts.linux(Map.of("HOME", home.toString(), "PATH", "/usr/bin:/bin"), home, List.of(), tmp);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long sink = 0;
        for (int i = 0; i < warm; i++) {
            sink += once(facts, ws, abi);
        }
        long policyCpu = 0, compileCpu = 0;
        for (int i = 0; i < runs; i++) {
            long t0 = mx.getCurrentThreadCpuTime();
            Policy p = new PolicyBuilder(facts).policy(Mode.REQUIRED, ws, MergedDecl.EMPTY);
            long t1 = mx.getCurrentThreadCpuTime();
            try (CompiledRuleset r = CompiledRuleset.compile(p.rules(), abi)) {
                sink += r.grants().size();
            }
            long t2 = mx.getCurrentThreadCpuTime();
            policyCpu += t1 - t0;
            compileCpu += t2 - t1;
        }
        try (var all = Files.walk(root)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
        System.out.printf("runs %d: policy build %.1f us, compile %.1f us, both %.1f us per run (thread CPU) [%d]%n", runs,
                policyCpu / 1e3 / runs, compileCpu / 1e3 / runs, (policyCpu + compileCpu) / 1e3 / runs, sink % 7);
    }

    private static int once(HostFacts facts, Path ws, int abi) {
        Policy p = new PolicyBuilder(facts).policy(Mode.REQUIRED, ws, MergedDecl.EMPTY);
        try (CompiledRuleset r = CompiledRuleset.compile(p.rules(), abi)) {
            return r.grants().size();
        }
    }
}
