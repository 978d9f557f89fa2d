package dev.magus.bench.path;

import dev.magus.policy.path.PathResolver;
import dev.magus.policy.path.Resolution;
import java.io.IOException;
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
 * Resolution of one request, three ways: magus's kernel-style {@link PathResolver}, the JDK's
 * {@link Path#toRealPath} ({@link RealPath}), and a naive lstat-per-component walk
 * ({@link NaiveWalk}). magus's resolver in its three forms: {@code new PathResolver()}
 * ({@link #magusResolver}: the kernel's answer first, through the landlock module's
 * {@code ProcFdLookup} on this class path, the walk when the path does not wholly exist),
 * {@link PathResolver#walking()} ({@link #magusWalk}: the walk alone) and its opt-in cache,
 * warm ({@link #magusResolverCached}). Every scenario's tree is built once per trial under a
 * temp dir, checked (every resolver must land where the kernel would, or the trial fails),
 * and deleted after.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class PathResolutionBench {

    /** See {@link Scenario}. The grid first, then the special tails at 6 components and 2 links. */
    @Param({
            "c2-l0-abs", "c6-l0-abs", "c12-l0-abs",
            "c2-l2-abs", "c6-l2-abs", "c12-l2-abs",
            "c2-l2-rel", "c6-l2-rel", "c12-l2-rel",
            "c2-l5-abs", "c6-l5-abs", "c12-l5-abs",
            "c2-l5-rel", "c6-l5-rel", "c12-l5-rel",
            "c6-l2-abs-missing", "c6-l2-rel-missing",
            "c6-l2-abs-dotdot", "c6-l2-rel-dotdot",
            "c6-l2-abs-cwd"})
    public String scenario;

    private LinkTree tree;
    private PathResolver resolver;
    private PathResolver walkingResolver;
    private PathResolver cachingResolver;
    private Path request;
    private Path cwd;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        tree = LinkTree.build(Scenario.parse(scenario));
        // As in a magus process that starts children: the natives are loaded, so the resolver
        // takes the kernel's answer (ProcFdLookup never loads them for a resolution).
        dev.magus.landlock.sys.Natives.require();
        resolver = new PathResolver();
        walkingResolver = PathResolver.walking();
        cachingResolver = PathResolver.caching(1024);
        request = tree.request();
        cwd = tree.cwd();
        Resolution r = resolver.resolve(request, cwd);
        if (!r.resolvedPath().orElseThrow().equals(tree.expected())) {
            throw new IllegalStateException(scenario + ": PathResolver gave " + r + ", the kernel would reach " + tree.expected());
        }
        if (!cachingResolver.resolve(request, cwd).equals(r)) {
            throw new IllegalStateException(scenario + ": the caching resolver disagrees with the plain one");
        }
        if (!walkingResolver.resolve(request, cwd).equals(r)) {
            throw new IllegalStateException(scenario + ": the walk disagrees with the kernel's answer");
        }
        Path absoluteRequest = cwd.resolve(request);
        Path viaJdk = RealPath.resolve(absoluteRequest);
        if (!viaJdk.equals(tree.expected())) {
            throw new IllegalStateException(scenario + ": toRealPath gave " + viaJdk + ", expected " + tree.expected());
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        tree.close();
    }

    /** {@code new PathResolver()}, as {@code Policy.check} uses it: the kernel's answer first. */
    @Benchmark
    public Resolution magusResolver() {
        return resolver.resolve(request, cwd);
    }

    /** The walk alone, component by component, as {@link #magusResolver} does when the kernel cannot say. */
    @Benchmark
    public Resolution magusWalk() {
        return walkingResolver.resolve(request, cwd);
    }

    /**
     * The opt-in caching resolver, warm: after the first call every existing component of the
     * request is remembered, so this is the cost of the walk without system calls.
     */
    @Benchmark
    public Resolution magusResolverCached() {
        return cachingResolver.resolve(request, cwd);
    }

    @Benchmark
    public Path jdkToRealPath() throws IOException {
        // A relative request must be made absolute against the same working directory first.
        return RealPath.resolve(request.isAbsolute() ? request : cwd.resolve(request));
    }

    @Benchmark
    public Path naiveLstatWalk() throws IOException {
        return NaiveWalk.resolve(request.isAbsolute() ? request : cwd.resolve(request));
    }
}
