package dev.magus.policy.fs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;

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

    private static final Ruleset EMPTY = new Ruleset(List.of(), new Builder().freeze());

    /** Orders rules by their path (the order of {@link #rules()}). */
    private static final Comparator<Rule> BY_PATH = (a, b) -> a.path().compareTo(b.path());

    /** Prefers the shallowest rule, then the first by path: the one a "nearest rule" hint names. */
    private static final Comparator<Rule> SHALLOWEST = (a, b) -> {
        int depth = Integer.compare(a.path().getNameCount(), b.path().getNameCount());
        return depth != 0 ? depth : a.path().compareTo(b.path());
    };

    /** The eight possible answers of {@link #granted}, so that a lookup allocates no mode. */
    private static final List<AccessMode> BY_BITS = IntStream.range(0, 8).mapToObj(AccessMode::new).toList();

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
        // A stable sort by path: rules on one path end up side by side, in the order given.
        Rule[] sorted = rules.toArray(Rule[]::new);
        Arrays.sort(sorted, BY_PATH);
        List<Rule> merged = new ArrayList<>(sorted.length);
        for (int i = 0; i < sorted.length; ) {
            int j = i + 1;
            while (j < sorted.length && sorted[j].path().equals(sorted[i].path())) {
                j++;
            }
            merged.add(j == i + 1 ? sorted[i] : merge(sorted, i, j));
            i = j;
        }

        Builder top = new Builder();
        for (Rule r : merged) {
            Builder b = top;
            // The components of an absolute, normalised path, cut from its string (no Path per component).
            String s = r.path().toString();
            for (int from = 1, len = s.length(); from < len; ) {
                int to = s.indexOf('/', from);
                if (to < 0) {
                    to = len;
                }
                b = b.child(s.substring(from, to));
                from = to + 1;
            }
            b.rule = r;
        }
        return new Ruleset(List.copyOf(merged), top.freeze());
    }

    /** The rules {@code sorted[from, to)}, all on one path, as one: modes united, distinct origins joined in order. */
    private static Rule merge(Rule[] sorted, int from, int to) {
        AccessMode mode = sorted[from].mode();
        Set<String> origins = new LinkedHashSet<>();
        for (int k = from; k < to; k++) {
            mode = mode.union(sorted[k].mode());
            origins.add(sorted[k].origin());
        }
        return new Rule(sorted[from].path(), mode, String.join(", ", origins));
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
        // Walks the string form (cached by the Path) by '/' offsets: no getName(i), no substring,
        // so a lookup allocates nothing.
        String s = resolved.toString();
        Node n = root;
        int bits = n.rule == null ? 0 : n.rule.mode().bits();
        int p = 0;
        int len = s.length();
        while ((p = skipSlashes(s, p)) < len) {
            long c = component(s, p);
            int e = (int) (c >>> 32);
            n = n.child(s, p, e, (int) c);
            if (n == null) {
                break;
            }
            if (n.rule != null) {
                bits |= n.rule.mode().bits();
            }
            p = e;
        }
        return BY_BITS.get(bits);
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
        String s = resolved.toString();
        int p = 0;
        int len = s.length();
        while ((p = skipSlashes(s, p)) < len) {
            long c = component(s, p);
            int e = (int) (c >>> 32);
            Node child = n.child(s, p, e, (int) c);
            if (child == null) {
                break;
            }
            n = child;
            if (n.rule != null && !n.rule.mode().has(needed)) {
                lacking = n.rule;
            }
            p = e;
        }
        if (lacking != null) {
            return Optional.of(lacking);
        }
        if (n == root) {
            return Optional.empty();
        }
        return Optional.of(n.shallowest);
    }

    private static int skipSlashes(String s, int p) {
        while (p < s.length() && s.charAt(p) == '/') {
            p++;
        }
        return p;
    }

    /**
     * The component of {@code s} starting at {@code p}, in one pass: its end in the high 32
     * bits, its hash (as {@link String#hashCode} would compute it) in the low 32 — packed so a
     * lookup allocates nothing.
     */
    private static long component(String s, int p) {
        int h = 0;
        int e = p;
        for (char c; e < s.length() && (c = s.charAt(e)) != '/'; e++) {
            h = 31 * h + c;
        }
        return ((long) e << 32) | (h & 0xffffffffL);
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

    /** One path component while {@link #of} builds the index; frozen into a {@link Node}. */
    private static final class Builder {
        final Map<String, Builder> children = new HashMap<>(4);
        Rule rule;

        Builder child(String name) {
            Builder c = children.get(name);
            if (c == null) {
                c = new Builder();
                children.put(name, c);
            }
            return c;
        }

        /** The immutable node of this subtree, with its shallowest rule settled. */
        Node freeze() {
            int size = children.size();
            // Open addressing at a load factor of at most 1/2: a miss ends at the first empty slot.
            int capacity = size == 0 ? 0 : Integer.highestOneBit(Math.max(2, size) * 2 - 1) << 1;
            String[] keys = new String[capacity];
            Node[] nodes = new Node[capacity];
            Rule best = rule;
            for (Map.Entry<String, Builder> c : children.entrySet()) {
                String key = c.getKey();
                Node child = c.getValue().freeze();
                int i = spread(key.hashCode()) & (capacity - 1);
                while (keys[i] != null) {
                    i = (i + 1) & (capacity - 1);
                }
                keys[i] = key;
                nodes[i] = child;
                if (best == null || SHALLOWEST.compare(child.shallowest, best) < 0) {
                    best = child.shallowest;
                }
            }
            return new Node(keys, nodes, rule, best);
        }
    }

    /**
     * One path component of the frozen index. Its children sit in an open-addressing table keyed
     * by the component's name, probed with the hash of a slice of the looked-up path's string, so
     * that a lookup compares characters in place instead of cutting a substring per component.
     */
    private static final class Node {
        /** Children's names, power-of-two sized, null for an empty slot; {@link #nodes} alike. */
        private final String[] keys;
        private final Node[] nodes;
        final Rule rule;
        /** The shallowest rule in this subtree (then first by path), never null below the root. */
        final Rule shallowest;

        Node(String[] keys, Node[] nodes, Rule rule, Rule shallowest) {
            this.keys = keys;
            this.nodes = nodes;
            this.rule = rule;
            this.shallowest = shallowest;
        }

        /**
         * The child named {@code s[from, to)}, or null; {@code h} is String.hashCode's formula
         * over that slice, so it matches the keys' own (cached) hashes.
         */
        Node child(String s, int from, int to, int h) {
            String[] k = keys;
            if (k.length == 0) {
                return null;
            }
            int len = to - from;
            int mask = k.length - 1;
            for (int i = spread(h) & mask; ; i = (i + 1) & mask) {
                String key = k[i];
                if (key == null) {
                    return null;
                }
                if (key.length() == len && key.hashCode() == h && s.regionMatches(from, key, 0, len)) {
                    return nodes[i];
                }
            }
        }
    }

    private static int spread(int h) {
        return h ^ (h >>> 16);
    }
}
