package dev.magus.policy.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.policy.fs.AccessMode;
import dev.magus.policy.fs.Rule;
import dev.magus.policy.fs.Ruleset;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The binding layer's per-glob write check ({@link Narrowing.Narrowed#permitsWrite}) against an
 * independent oracle (each glob turned into a regular expression), and the containment of a
 * delegated job's globs in its parent's ({@link WriteGlob#within}) against the coverage it
 * claims. The checkout here is only a path: the tree seam answers "missing" for everything, so
 * the kernel's part (LeaseNarrowing's table) is not what is checked, only the binding's.
 */
class LeaseGlobPropertiesTest {
    static final Path CHECKOUT = Path.of("/w/checkout");
    static final Tree NOTHING = new Tree() {
        @Override
        public Kind kind(Path absolute) {
            return Kind.MISSING;
        }

        @Override
        public List<String> list(Path directory) {
            return List.of();
        }
    };

    static Narrowing.Narrowed narrowed(List<String> globs) {
        Ruleset rules = Ruleset.of(List.of(new Rule(CHECKOUT, AccessMode.RWX, "core:workspace")));
        LeaseJob job = new LeaseJob("9", true, true, globs.stream().map(g -> WriteGlob.parse(g, "t")).toList());
        return (Narrowing.Narrowed) LeaseNarrowing.plan(rules, job,
                new LeaseScope(CHECKOUT, Path.of("/c"), Path.of("/t"), Path.of("/s")), NOTHING);
    }

    /** The oracle: a glob as a regular expression over components each followed by '/'. */
    static Pattern oracle(String glob) {
        StringBuilder re = new StringBuilder();
        for (String seg : WriteGlob.parse(glob, "t").segments()) {
            if (seg.equals("**")) {
                re.append("(?:[^/]+/)*");
                continue;
            }
            for (char c : seg.toCharArray()) {
                re.append(c == '*' ? "[^/]*" : c == '?' ? "[^/]" : Pattern.quote(String.valueOf(c)));
            }
            re.append('/');
        }
        return Pattern.compile(re.toString());
    }

    /** Covered: the glob matches the path or one of its ancestors. */
    static boolean oracleCovers(String glob, List<String> path) {
        Pattern p = oracle(glob);
        StringBuilder prefix = new StringBuilder();
        if (p.matcher("").matches()) {
            return true;
        }
        for (String c : path) {
            prefix.append(c).append('/');
            if (p.matcher(prefix).matches()) {
                return true;
            }
        }
        return false;
    }

    @Provide
    Arbitrary<String> globs() {
        Arbitrary<String> segment = Arbitraries.of("a", "b", ".a", "ab", "*", "a*", "?", "**", "*b", ".*", "?b", "a?");
        return segment.list().ofMinSize(1).ofMaxSize(4).map(l -> String.join("/", l));
    }

    @Provide
    Arbitrary<List<String>> paths() {
        return Arbitraries.of("a", "b", "ab", "ba", ".a", ".b", "aab", "x", ".", "..").list().ofMaxSize(5)
                .map(l -> l.stream().filter(c -> !c.equals(".") && !c.equals("..")).toList());
    }

    private static Path under(List<String> rel) {
        Path p = CHECKOUT;
        for (String c : rel) {
            p = p.resolve(c);
        }
        return p;
    }

    @Property
    void theBindingCheckAllowsExactlyWhatSomeGlobCovers(@ForAll("globs") String g1, @ForAll("globs") String g2,
                                                        @ForAll("paths") List<String> path) {
        Narrowing.Narrowed n = narrowed(List.of(g1, g2));
        boolean expected = oracleCovers(g1, path) || oracleCovers(g2, path);
        assertThat(n.permitsWrite(under(path))).as("%s %s on %s", g1, g2, path).isEqualTo(expected);
    }

    @Property
    void aPathThatStillHoldsDotDotOrDotIsNeverAllowed(@ForAll("globs") String glob, @ForAll("paths") List<String> path,
                                                       @ForAll boolean dotDot) {
        Narrowing.Narrowed n = narrowed(List.of(glob, "**"));
        List<String> with = new ArrayList<>(path);
        with.add(with.size() / 2, dotDot ? ".." : ".");
        Path p = CHECKOUT;
        for (String c : with) {
            p = p.resolve(c); // Path.resolve keeps "." and ".." as components
        }
        assertThat(n.permitsWrite(p)).as("%s", p).isFalse();
        assertThat(n.permitsWrite(Path.of("checkout").resolve(String.join("/", path.isEmpty() ? List.of("a") : path))))
                .as("a relative path").isFalse();
    }

    @Property
    void aChildGlobWithinItsParentsCoversNothingTheParentDoesNot(@ForAll("globs") String child, @ForAll("globs") String parent,
                                                                 @ForAll("paths") List<String> path) {
        WriteGlob c = WriteGlob.parse(child, "t");
        WriteGlob p = WriteGlob.parse(parent, "t");
        if (c.within(p) && c.covers(path)) {
            assertThat(p.covers(path)).as("%s within %s, covers %s", child, parent, path).isTrue();
        }
    }

    @Property
    void everyGlobLiesWithinItselfAndWithinEverything(@ForAll("globs") String glob) {
        WriteGlob g = WriteGlob.parse(glob, "t");
        assertThat(g.within(g)).isTrue();
        assertThat(g.within(WriteGlob.parse("**", "t"))).isTrue();
    }

    @Example
    void theGlobFormsByExample() {
        Narrowing.Narrowed n = narrowed(List.of("src/**", "docs/*.md", "a?c", "build/", ".config/*"));
        assertThat(n.permitsWrite(under(List.of("src")))).as("src/** covers src itself").isTrue();
        assertThat(n.permitsWrite(under(List.of("src", "x", "y.java")))).isTrue();
        assertThat(n.permitsWrite(under(List.of("docs", "a.md")))).isTrue();
        assertThat(n.permitsWrite(under(List.of("docs", ".hidden.md")))).as("* matches a leading dot").isTrue();
        assertThat(n.permitsWrite(under(List.of("docs", "sub", "a.md")))).as("* does not cross /").isFalse();
        assertThat(n.permitsWrite(under(List.of("docs", "a.txt")))).isFalse();
        assertThat(n.permitsWrite(under(List.of("abc")))).isTrue();
        assertThat(n.permitsWrite(under(List.of("abbc")))).as("? is one character").isFalse();
        assertThat(n.permitsWrite(under(List.of("build", "out.o")))).as("a trailing slash is the directory").isTrue();
        assertThat(n.permitsWrite(under(List.of(".config", "x")))).isTrue();
        assertThat(n.permitsWrite(CHECKOUT)).as("the root itself: only **").isFalse();
        assertThat(n.permitsWrite(under(List.of("README")))).isFalse();
        assertThat(n.permitsWrite(Path.of("/w/checkout/src/../README"))).as("unresolved").isFalse();
        assertThat(narrowed(List.of("**")).permitsWrite(CHECKOUT)).isTrue();
    }

    @Example
    void containmentByExample() {
        assertThat(glob("src/main/**").within(glob("src/**"))).isTrue();
        assertThat(glob("src/a.java").within(glob("src/*.java"))).isTrue();
        assertThat(glob("src/*.java").within(glob("src/*"))).isTrue();
        assertThat(glob("src/**").within(glob("src/*"))).as("src/** covers src itself, src/* does not").isFalse();
        assertThat(glob("src/*/**").within(glob("src/*"))).as("beneath what src/* covers").isTrue();
        assertThat(glob("**/x").within(glob("src/**"))).isFalse();
        assertThat(glob("docs/**").within(glob("src/**"))).isFalse();
        assertThat(glob("src/*.java").within(glob("src/*.ja*"))).as("sound, not complete: refused").isFalse();
        assertThat(glob("src").within(glob("src/main"))).isFalse();
    }

    private static WriteGlob glob(String g) {
        return WriteGlob.parse(g, "t");
    }
}
