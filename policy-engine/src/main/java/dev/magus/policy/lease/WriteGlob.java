package dev.magus.policy.lease;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One entry of a job's {@code write_paths}: a glob relative to the checkout root, small enough
 * that what the kernel enforces for it can be stated exactly ({@link LeaseNarrowing}). In a
 * {@code /}-separated component, {@code *} matches any run of characters and {@code ?} one
 * (neither crosses {@code /}; both match a leading dot); a component {@code **} matches any
 * number of components, none included. Empty and {@code .} components are dropped. A glob covers
 * what it matches and everything beneath, as every sandbox rule covers a subtree. Refused (MGS2004): an empty or absolute glob, a {@code ..} component (the grant stays inside
 * the checkout), a NUL, a {@code **} inside a component, and {@code [ ] { } \} (no classes,
 * alternatives or escapes: one glob per path).
 *
 * @param text     the glob as written, normalized
 * @param segments its components
 */
public record WriteGlob(String text, List<String> segments) {

    public WriteGlob {
        Objects.requireNonNull(text, "text");
        segments = List.copyOf(segments);
        if (segments.isEmpty()) {
            throw new IllegalArgumentException("a glob has at least one component");
        }
    }

    /**
     * Parses and validates one glob.
     *
     * @param text   as the user or the store wrote it
     * @param source where it came from, for the diagnostic ({@code --write}, {@code jobs.db job 7})
     * @throws SandboxException MGS2004 naming the glob and the source when it cannot be honored
     */
    public static WriteGlob parse(String text, String source) {
        Objects.requireNonNull(text, "text");
        if (text.indexOf('\0') >= 0) {
            throw refuse(text.replace("\0", "\\0"), source, "contains a NUL character");
        }
        if (text.isBlank()) {
            throw refuse(text, source, "is empty");
        }
        if (text.startsWith("/")) {
            throw refuse(text, source, "is absolute; write_paths are relative to the checkout root");
        }
        for (char c : new char[] {'[', ']', '{', '}', '\\'}) {
            if (text.indexOf(c) >= 0) {
                throw refuse(text, source, "uses '" + c + "': classes, alternatives and escapes are not supported;"
                        + " write one glob per path");
            }
        }
        List<String> segments = new ArrayList<>();
        for (String s : text.split("/")) {
            if (s.isEmpty() || s.equals(".")) {
                continue;
            }
            if (s.equals("..")) {
                throw refuse(text, source, "contains '..'; a write path must stay inside the checkout");
            }
            if (s.contains("**") && !s.equals("**")) {
                throw refuse(text, source, "uses '**' inside a component; '**' must be a whole component (src/**/x)");
            }
            segments.add(s);
        }
        if (segments.isEmpty()) {
            throw refuse(text, source, "names the checkout root itself; write '**' to grant all of it");
        }
        return new WriteGlob(String.join("/", segments), segments);
    }

    private static SandboxException refuse(String text, String source, String why) {
        return new SandboxException(Diagnostic.of(Code.MGS2004, "write path '" + text + "' (" + source + ") " + why, text,
                Operation.NONE, Layer.POLICY, source));
    }

    /** Whether a component holds a wildcard. */
    static boolean wild(String segment) {
        return segment.indexOf('*') >= 0 || segment.indexOf('?') >= 0;
    }

    /** Whether no component holds a wildcard: the glob names one path. */
    public boolean literal() {
        return segments.stream().noneMatch(WriteGlob::wild);
    }

    /** The components before the first wildcard one (all of them for a literal glob). */
    public List<String> fixedPrefix() {
        int i = 0;
        while (i < segments.size() && !wild(segments.get(i))) {
            i++;
        }
        return segments.subList(0, i);
    }

    /**
     * Whether everything after the fixed prefix is {@code **}, so the glob covers the whole
     * subtree of its prefix ({@code src/**}, {@code **}): a directory rule there is exact.
     */
    public boolean coversPrefixSubtree() {
        List<String> rest = segments.subList(fixedPrefix().size(), segments.size());
        return !rest.isEmpty() && rest.stream().allMatch("**"::equals);
    }

    /**
     * Whether this glob covers the path whose components (relative to the checkout root) are
     * {@code path}: it matches the path itself or one of its ancestors.
     */
    public boolean covers(List<String> path) {
        return walk(path).covered();
    }

    /**
     * How far {@code path} (components relative to the checkout root) gets through this glob:
     * whether the glob covers it, and whether some longer path beneath it could still match
     * (so a tree walk looking for matches must go on below it).
     */
    Progress walk(List<String> path) {
        int n = segments.size();
        boolean[] at = closure(new boolean[n + 1], 0);
        for (String component : path) {
            if (at[n]) {
                return new Progress(true, false);
            }
            boolean[] next = new boolean[n + 1];
            boolean any = false;
            for (int g = 0; g < n; g++) {
                if (!at[g]) {
                    continue;
                }
                String seg = segments.get(g);
                if (seg.equals("**")) {
                    closure(next, g);
                    any = true;
                } else if (matches(seg, component)) {
                    closure(next, g + 1);
                    any = true;
                }
            }
            if (!any) {
                return new Progress(false, false);
            }
            at = next;
        }
        boolean below = false;
        for (int g = 0; g < n; g++) {
            below |= at[g];
        }
        return new Progress(at[n], below && !at[n]);
    }

    /**
     * Whether everything this glob covers, {@code parent} covers too: a delegated job's glob
     * lying within its parent's. Sound, not complete: {@code true} is always right; a wildcard
     * component is taken as lying within only the same component, {@code *}, or a {@code **}, and
     * a {@code **} only within a {@code **} (or beneath a path the parent covers whole).
     */
    public boolean within(WriteGlob parent) {
        List<String> p = parent.segments;
        int n = p.size();
        boolean[] at = parent.closure(new boolean[n + 1], 0);
        for (String c : segments) {
            if (at[n]) {
                return true;
            }
            boolean[] next = new boolean[n + 1];
            for (int g = 0; g < n; g++) {
                if (!at[g]) {
                    continue;
                }
                String seg = p.get(g);
                if (c.equals("**")) {
                    // Any number of components, none included: only a ** of the parent absorbs
                    // every one of them (the zero case keeps the states that are already here).
                    if (seg.equals("**")) {
                        parent.closure(next, g);
                    }
                } else if (seg.equals("**")) {
                    parent.closure(next, g);
                } else if (componentWithin(c, seg)) {
                    parent.closure(next, g + 1);
                }
            }
            at = next;
        }
        return at[n];
    }

    /** Every name {@code child} matches, {@code parent} matches too (sound: see {@link #within}). */
    private static boolean componentWithin(String child, String parent) {
        if (parent.equals("*") || parent.equals(child)) {
            return true;
        }
        return !wild(child) && matches(parent, child);
    }

    /** Marks {@code g} and every position a run of {@code **} (matching nothing) leads to from it. */
    private boolean[] closure(boolean[] at, int g) {
        at[g] = true;
        while (g < segments.size() && segments.get(g).equals("**")) {
            at[++g] = true;
        }
        return at;
    }

    /** {@code *} and {@code ?} within one component, by backtracking on the last star. */
    static boolean matches(String pattern, String name) {
        int p = 0;
        int s = 0;
        int star = -1;
        int mark = 0;
        while (s < name.length()) {
            if (p < pattern.length() && (pattern.charAt(p) == '?' || pattern.charAt(p) == name.charAt(s))) {
                p++;
                s++;
            } else if (p < pattern.length() && pattern.charAt(p) == '*') {
                star = p++;
                mark = s;
            } else if (star >= 0) {
                p = star + 1;
                s = ++mark;
            } else {
                return false;
            }
        }
        while (p < pattern.length() && pattern.charAt(p) == '*') {
            p++;
        }
        return p == pattern.length();
    }

    /**
     * @param covered the glob matches the path or an ancestor of it
     * @param below   not covered, but a path beneath it could be
     */
    record Progress(boolean covered, boolean below) {
    }

    @Override
    public String toString() {
        return text;
    }
}
