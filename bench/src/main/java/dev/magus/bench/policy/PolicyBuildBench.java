package dev.magus.bench.policy;

import dev.magus.policy.Policy;
import dev.magus.policy.PolicyBuilder;
import dev.magus.policy.PolicyOrOff;
import dev.magus.policy.decl.SandboxDecl;
import dev.magus.events.Mode;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Building a run's policy for a workspace with three spells and a target: the core footprint
 * and every declared location resolved on the (fake, temp-dir) host, merged into one
 * ruleset. {@code declareAndBuild} also validates the declarations, as loading them would.
 */
@State(Scope.Benchmark)
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class PolicyBuildBench {
    private Workspace w;
    private PolicyBuilder builder;
    private SandboxDecl workspace;
    private List<SandboxDecl> spells;
    private Optional<SandboxDecl> target;

    @Setup(Level.Trial)
    public void setUp() {
        w = new Workspace();
        builder = new PolicyBuilder(w.host);
        workspace = w.workspace();
        spells = w.spells();
        target = w.target();
        Policy p = build().policy().orElseThrow();
        long declared = p.rules().stream().filter(r -> !r.origin().startsWith("core:")).count();
        if (declared < 8) {
            throw new IllegalStateException("expected the 8 declared locations as rules, got " + p.rules());
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        w.close();
    }

    @Benchmark
    public PolicyOrOff build() {
        return builder.build(Mode.BEST_EFFORT, w.ws, workspace, spells, target);
    }

    @Benchmark
    public PolicyOrOff declareAndBuild() {
        return new PolicyBuilder(w.host).build(Mode.BEST_EFFORT, w.ws, w.workspace(), w.spells(), w.target());
    }
}
