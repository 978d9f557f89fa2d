package dev.magus.policy;

import dev.magus.policy.fs.Access;
import dev.magus.policy.path.PathResolver;
import dev.magus.policy.path.Resolution;
import dev.magus.policy.path.Traced;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The binding-layer check of one {@link Policy} with memory: a caching {@link PathResolver}
 * and a bounded cache of verdicts keyed by (operation, requested path, working directory), so
 * that asking the same question again costs a hash lookup instead of a filesystem walk. It gives
 * exactly the verdicts of {@link Policy#check} on a filesystem that has not changed since they
 * were remembered; {@code Policy.check} itself stays uncached (a {@code Policy} is an immutable
 * value, so the memory lives here, beside it).
 *
 * <p><b>When to invalidate.</b> Only verdicts whose resolution existed all the way down are
 * remembered, and the resolver remembers only existing components, so <em>creating</em> files or
 * directories never needs an invalidation. Removing, replacing (a file by a directory or a link,
 * a directory renamed over), or re-pointing a symbolic link under a path that was checked does:
 * call {@link #invalidate(Path)} with the changed path, or {@link #invalidate()} when unsure
 * (after running a child that may have changed anything it could write, for instance). A checker
 * is meant to live for one run and be dropped with it; it is never shared between runs.
 *
 * <p>It resolves on the filesystem of the policy's own resolver, so its verdicts are the
 * policy's on any host, one in memory included.
 *
 * <p>Thread-safe. Invalidation replaces the maps rather than clearing them, and a check keeps the
 * maps it started with: a check that begins after {@code invalidate} returns answers from the
 * filesystem as it is then; a check running concurrently with it may answer either way, but what
 * it learned is never remembered past the invalidation.
 */
public final class PolicyChecker {

    /** The default bound of each cache: a run touches a few thousand distinct paths at most. */
    public static final int DEFAULT_MAX_ENTRIES = 4096;

    private final Policy policy;
    private final PathResolver resolver;
    private final int maxEntries;
    private volatile ConcurrentHashMap<Key, Verdict> verdicts = new ConcurrentHashMap<>();

    private PolicyChecker(Policy policy, int maxEntries) {
        this.policy = Objects.requireNonNull(policy, "policy");
        if (maxEntries < 1) {
            throw new IllegalArgumentException("a cache needs room for at least one entry: " + maxEntries);
        }
        this.maxEntries = maxEntries;
        this.resolver = PathResolver.caching(policy.resolver().filesystem(), maxEntries);
    }

    /** A checker of {@code policy} remembering up to {@value #DEFAULT_MAX_ENTRIES} verdicts and path components. */
    public static PolicyChecker of(Policy policy) {
        return new PolicyChecker(policy, DEFAULT_MAX_ENTRIES);
    }

    /**
     * A checker of {@code policy} remembering up to {@code maxEntries} verdicts and as many path
     * components; when either is full it forgets all of its entries and starts over.
     */
    public static PolicyChecker caching(Policy policy, int maxEntries) {
        return new PolicyChecker(policy, maxEntries);
    }

    public Policy policy() {
        return policy;
    }

    /**
     * {@link Policy#check}, answered from memory when the same question was asked before.
     *
     * @param op   the access
     * @param path as requested; a relative one is taken against {@code cwd}
     * @param cwd  the working directory of the request
     */
    public Verdict check(Access op, Path path, Path cwd) {
        // Read before resolving: see invalidate() for why the order matters.
        ConcurrentHashMap<Key, Verdict> map = verdicts;
        // An absolute request does not depend on the working directory: one entry for every cwd.
        Key key = new Key(op, path.toString(), path.isAbsolute() ? "" : cwd.toString());
        Verdict known = map.get(key);
        if (known != null) {
            return known;
        }
        Resolution resolution;
        Verdict verdict;
        if (op == Access.WRITE) {
            Traced traced = resolver.trace(path, cwd);
            resolution = traced.resolution();
            verdict = policy.writeVerdict(path, cwd, traced);
        } else {
            resolution = resolver.resolve(path, cwd);
            verdict = policy.verdict(op, path, resolution);
        }
        // A missing component is asked again every time (creating it needs no invalidation), and a
        // walk that met one may have resumed over it with "..": only fully existing answers are kept.
        if (resolution.existing()) {
            if (map.size() >= maxEntries) {
                map.clear();
            }
            map.put(key, verdict);
        }
        return verdict;
    }

    /** Forgets every remembered verdict and path component. */
    public void invalidate() {
        // The resolver first: a check that sees the new verdict map was started after this swap,
        // so it resolves through the new resolver map too and cannot remember a stale answer.
        resolver.invalidate();
        verdicts = new ConcurrentHashMap<>();
    }

    /**
     * Forgets what is remembered about {@code path} and everything beneath it. Every remembered
     * verdict goes too: one may depend on {@code path} through any link along its resolution,
     * which its key does not tell; they come back cheaply from the resolver's remaining memory.
     */
    public void invalidate(Path path) {
        resolver.invalidate(path);
        verdicts = new ConcurrentHashMap<>();
    }

    @Override
    public String toString() {
        return "PolicyChecker[" + policy.ruleset().rules().size() + " rules, " + verdicts.size() + " verdicts]";
    }

    /** The question: the same operation on the same spelling from the same directory. */
    private record Key(Access op, String path, String cwd) {
    }
}
