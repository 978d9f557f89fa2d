package dev.magus.bench.policy;

import dev.magus.bench.check.SyntheticPolicy;
import dev.magus.policy.Policy;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * Building a policy of N rules from rules already resolved (the index and its records). Run
 * with {@code -prof gc}: {@code gc.alloc.rate.norm} is the bytes allocated per policy, an
 * upper bound of what it retains; {@link RetainedSize} measures what it retains.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class PolicyMemoryBench {
    /** The fixture's workspace and home; RetainedSize builds its policies on the same ones. */
    static final Path WORKSPACE = Path.of("/srv/magus-bench/ws");
    static final Path HOME = Path.of("/home/magus-bench");

    @Param({"10000"})
    public int rules;

    @Benchmark
    public Policy buildIndex() {
        return SyntheticPolicy.policy(rules, WORKSPACE, HOME);
    }
}
