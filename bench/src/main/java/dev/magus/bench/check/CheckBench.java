package dev.magus.bench.check;

import dev.magus.bench.Trees;
import dev.magus.policy.Policy;
import dev.magus.policy.Verdict;
import dev.magus.policy.fs.Access;
import dev.magus.policy.fs.Ruleset;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The binding-layer check against rulesets of growing size. {@code PathResolver} keeps no
 * cache (each check walks the filesystem again, by design: the answer must reflect the tree at
 * the time of the call), so there is no warm-cache resolution to measure; the closest figure
 * to a "cache hit" is the rule lookup on an already resolved path ({@code lookup*}), and the
 * full check ({@code check*}) is resolution plus lookup.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class CheckBench {

    @Param({"10", "100", "1000", "10000"})
    public int rules;

    private Path root;
    private Path workspace;
    private Policy policy;
    private Ruleset ruleset;
    private Path allowedFile;
    private Path deniedFile;

    @Setup(Level.Trial)
    public void setUp() {
        root = Trees.tempRoot("magus-bench-check-");
        Path home = Trees.dirs(root.resolve("home/u"));
        workspace = Trees.dirs(root.resolve("ws"));
        allowedFile = Trees.file(workspace.resolve("src/main/java/dev/magus/App.java"), "class App {}\n");
        deniedFile = Trees.file(home.resolve(".ssh/id_rsa"), "FAKE KEY, NOT A SECRET\n");
        policy = SyntheticPolicy.policy(rules, workspace, home);
        ruleset = policy.ruleset();
        if (ruleset.rules().size() != rules) {
            throw new IllegalStateException("built " + ruleset.rules().size() + " rules, wanted " + rules);
        }
        if (!policy.check(Access.READ, allowedFile, workspace).allowed()
                || policy.check(Access.READ, deniedFile, workspace).allowed()
                || !ruleset.permits(allowedFile, Access.WRITE) || ruleset.permits(deniedFile, Access.READ)) {
            throw new IllegalStateException("the fixture does not allow and deny what it should");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        Trees.delete(root);
    }

    /** The rule lookup alone, on a resolved path deep in the workspace (allowed). */
    @Benchmark
    public boolean lookupAllowed() {
        return ruleset.permits(allowedFile, Access.READ);
    }

    /** The rule lookup alone, on a resolved path outside every rule (denied). */
    @Benchmark
    public boolean lookupDenied() {
        return ruleset.permits(deniedFile, Access.READ);
    }

    /** {@code Policy.check}: resolution from the filesystem, lookup, verdict (an allowed read). */
    @Benchmark
    public Verdict checkReadAllowed() {
        return policy.check(Access.READ, allowedFile, workspace);
    }

    /** An allowed write also consults the control-file list. */
    @Benchmark
    public Verdict checkWriteAllowed() {
        return policy.check(Access.WRITE, allowedFile, workspace);
    }
}
