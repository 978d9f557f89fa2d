package dev.magus.policy;

import dev.magus.policy.fs.Access;
import dev.magus.policy.path.PathResolver;
import dev.magus.policy.path.Resolution;
import dev.magus.policy.path.Traced;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The binding-layer check of one {@link Policy} with memory: a caching {@link PathResolver} and a
 * bounded cache of verdicts by (operation, path, working directory). Its verdicts are exactly
 * {@link Policy#check}'s on a filesystem unchanged since they were remembered; one checker lives
 * for one run.
 *
 * <p>Only fully existing resolutions are remembered, so creating files never needs an
 * invalidation; removing, replacing or re-pointing a link under a checked path does: call
 * {@link #invalidate(Path)}, or {@link #invalidate()} when unsure (after a child ran).
 *
 * <p>Thread-safe. Invalidation replaces the maps and a check keeps those it started with: a
 * check begun after {@code invalidate} returns sees the filesystem as it is then, and what a
 * concurrent one learned is never remembered past the invalidation.
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
