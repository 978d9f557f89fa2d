package dev.magus.bench.check;

import dev.magus.bench.Fixtures;
import dev.magus.policy.Policy;
import dev.magus.policy.PolicyChecker;
import dev.magus.policy.Verdict;
import dev.magus.policy.fs.Access;
import dev.magus.policy.fs.Ruleset;
import dev.magus.policy.path.PathResolver;
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
 * The binding-layer check against rulesets of growing size: the rule lookup alone on an
 * already resolved path ({@code lookup*}); {@code Policy.check} ({@code check*}), which resolves
 * with a resolver that caches nothing, so every call walks the filesystem (cold); and the same
 * check composed with a warm {@link PathResolver#caching} resolver ({@code cachedCheck*}):
 * {@code Policy.check} takes no resolver, so that one is resolution plus {@code Ruleset.permits},
 * what {@code check} does for an allowed read. {@code checker*}: {@link PolicyChecker#check}, the
 * binding-layer check with its verdict cache warm (the whole check, verdict included).
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
    private PathResolver cachingResolver;
    private PolicyChecker checker;
    private Path allowedFile;
    private Path deniedFile;

    @Setup(Level.Trial)
    public void setUp() {
        root = Fixtures.tempRoot("magus-bench-check-");
        Path home = Fixtures.dirs(root.resolve("home/u"));
        workspace = Fixtures.dirs(root.resolve("ws"));
        allowedFile = Fixtures.file(workspace.resolve("src/main/java/dev/magus/App.java"), "class App {}\n");
        deniedFile = Fixtures.file(home.resolve(".ssh/id_rsa"), "FAKE KEY, NOT A SECRET\n");
        policy = SyntheticPolicy.policy(rules, workspace, home);
        ruleset = policy.ruleset();
        cachingResolver = PathResolver.caching(1024);
        checker = PolicyChecker.of(policy);
        if (ruleset.rules().size() != rules) {
            throw new IllegalStateException("built " + ruleset.rules().size() + " rules, wanted " + rules);
        }
        if (!policy.check(Access.READ, allowedFile, workspace).allowed()
                || policy.check(Access.READ, deniedFile, workspace).allowed()
                || !ruleset.permits(allowedFile, Access.WRITE) || ruleset.permits(deniedFile, Access.READ)) {
            throw new IllegalStateException("the fixture does not allow and deny what it should");
        }
        for (Access op : Access.values()) {
            for (Path p : new Path[] {allowedFile, deniedFile}) {
                if (!checker.check(op, p, workspace).equals(policy.check(op, p, workspace))) {
                    throw new IllegalStateException("the cached checker disagrees with Policy.check on " + op + " " + p);
                }
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        Fixtures.delete(root);
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

    /** Resolution through a warm caching resolver, then the lookup: a check whose resolution is a cache hit. */
    @Benchmark
    public boolean cachedCheckReadAllowed() {
        return cachingResolver.resolve(allowedFile, workspace).resolvedPath()
                .map(p -> ruleset.permits(p, Access.READ)).orElse(false);
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

    /** The cached binding-layer check, warm: an allowed read answered from the verdict cache. */
    @Benchmark
    public Verdict checkerReadAllowed() {
        return checker.check(Access.READ, allowedFile, workspace);
    }

    /** The cached binding-layer check, warm: a denied read (MGS2001, with its hint) answered from the verdict cache. */
    @Benchmark
    public Verdict checkerReadDenied() {
        return checker.check(Access.READ, deniedFile, workspace);
    }
}
