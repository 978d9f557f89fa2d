package dev.magus.policy.fs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * An immutable set of {@link Rule}s indexed by path components, so that a lookup on a path of
 * {@code k} components costs {@code O(k)} however many rules there are.
 *
 * <p>Permission is containment by directory subtree: a rule on {@code /a/b} covers
 * {@code /a/b} and {@code /a/b/c}, never {@code /a/bc}. No globs. The bits a path is granted
 * are the union of the bits of every rule at or above it; each bit grants its access alone.
 *
 * <p>Paths given to lookups must be absolute and already resolved ({@code PathResolver}); they
 * are compared component by component exactly as given.
 */
public final class Ruleset {

    private static final Ruleset EMPTY = new Ruleset(List.of(), new Node(0));

    /** Orders rules by their path (the order of {@link #rules()}). */
    private static final Comparator<Rule> BY_PATH = Comparator.comparing(Rule::path);

    /** Prefers the shallowest rule, then the first by path: the one a "nearest rule" hint names. */
    private static final Comparator<Rule> SHALLOWEST = Comparator.<Rule>comparingInt(r -> r.path().getNameCount())
            .thenComparing(Rule::path);

    /** The eight possible answers of {@link #granted}, so that a lookup allocates no mode. */
    private static final AccessMode[] BY_BITS = new AccessMode[8];

    static {
        for (int b = 0; b < BY_BITS.length; b++) {
            BY_BITS[b] = new AccessMode(b);
        }
    }

    private final List<Rule> rules;
    private final Node root;

    private Ruleset(List<Rule> rules, Node root) {
        this.rules = rules;
        this.root = root;
    }

    public static Ruleset empty() {
        return EMPTY;
    }

    /**
     * Builds the index. Rules on the same path merge into one: their modes union (rx + rw =
     * rwx) and their distinct origins are joined with {@code ", "} in the order given.
     */
    public static Ruleset of(Collection<Rule> rules) {
        if (rules.isEmpty()) {
            return EMPTY;
        }
        Map<Path, AccessMode> modes = new LinkedHashMap<>();
        Map<Path, Set<String>> origins = new HashMap<>();
        for (Rule r : rules) {
            modes.merge(r.path(), r.mode(), AccessMode::union);
            origins.computeIfAbsent(r.path(), p -> new LinkedHashSet<>()).add(r.origin());
        }
        List<Rule> merged = new ArrayList<>(modes.size());
        modes.forEach((path, mode) -> merged.add(new Rule(path, mode, String.join(", ", origins.get(path)))));
        merged.sort(BY_PATH);

        Node top = new Node(0);
        for (Rule r : merged) {
            Node n = top;
            Path p = r.path();
            for (int i = 0, k = p.getNameCount(); i < k; i++) {
                int depth = i + 1;
                n = n.children.computeIfAbsent(p.getName(i).toString(), name -> new Node(depth));
            }
            n.rule = r;
        }
        top.settle();
        return new Ruleset(List.copyOf(merged), top);
    }

    /** Every rule, merged, sorted by path. */
    public List<Rule> rules() {
        return rules;
    }

    public boolean isEmpty() {
        return rules.isEmpty();
    }

    /** The union of the modes of every rule at or above {@code resolved}. */
    public AccessMode granted(Path resolved) {
        requireAbsolute(resolved);
        // Walks the string form (cached by the Path) instead of getName(i), which allocates.
        String s = resolved.toString();
        Node n = root;
        int bits = n.rule == null ? 0 : n.rule.mode().bits();
        int p = 0;
        int len = s.length();
        while (true) {
            while (p < len && s.charAt(p) == '/') {
                p++;
            }
            if (p >= len) {
                break;
            }
            int e = s.indexOf('/', p);
            if (e < 0) {
                e = len;
            }
            n = n.children.get(s.substring(p, e));
            if (n == null) {
                break;
            }
            if (n.rule != null) {
                bits |= n.rule.mode().bits();
            }
            p = e;
        }
        return BY_BITS[bits];
    }

    /** Whether some rule at or above {@code resolved} grants {@code access}. */
    public boolean permits(Path resolved, Access access) {
        return granted(resolved).has(access);
    }

    /**
     * The rule a user most likely meant when {@code access} to {@code resolved} is denied, for
     * "nearest rule that almost matched" hints:
     * <ol>
     *   <li>the deepest rule that contains the path but lacks the bit (the grant is there, the
     *       bit is not: "declare rw instead of ro");</li>
     *   <li>else the rule whose path shares the most leading components with the request
     *       (the shallowest such, then the first by path) — a sibling or a child of where the
     *       request went ("you granted ~/.cache/go-build, this was ~/.cache/go");</li>
     *   <li>empty when no rule shares even its first component with the request.</li>
     * </ol>
     * Meant for denials; on a permitted path it answers by the same rules.
     */
    public Optional<Rule> nearest(Path resolved, Access needed) {
        requireAbsolute(resolved);
        Node n = root;
        Rule lacking = root.rule != null && !root.rule.mode().has(needed) ? root.rule : null;
        int k = resolved.getNameCount();
        for (int i = 0; i < k; i++) {
            Node child = n.children.get(resolved.getName(i).toString());
            if (child == null) {
                break;
            }
            n = child;
            if (n.rule != null && !n.rule.mode().has(needed)) {
                lacking = n.rule;
            }
        }
        if (lacking != null) {
            return Optional.of(lacking);
        }
        if (n.depth == 0) {
            return Optional.empty();
        }
        return Optional.of(n.shallowest);
    }

    private static void requireAbsolute(Path p) {
        if (!p.isAbsolute()) {
            throw new IllegalArgumentException("lookups take absolute, resolved paths: " + p);
        }
    }

    @Override
    public String toString() {
        return "Ruleset" + rules;
    }

    /** One path component. Mutated only while {@link #of} builds it, then never again. */
    private static final class Node {
        final int depth;
        final Map<String, Node> children = new HashMap<>(4);
        Rule rule;
        /** The shallowest rule in this subtree (then first by path); set by {@link #settle}. */
        Rule shallowest;

        Node(int depth) {
            this.depth = depth;
        }

        Rule settle() {
            Rule best = rule;
            for (Node c : children.values()) {
                Rule candidate = c.settle();
                if (best == null || SHALLOWEST.compare(candidate, best) < 0) {
                    best = candidate;
                }
            }
            shallowest = best;
            return best;
        }
    }
}
