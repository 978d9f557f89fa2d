package dev.magus.policy.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;
import org.junit.jupiter.api.Test;

class RulesetTest {

    private static Rule rule(String path, AccessMode mode, String origin) {
        return new Rule(Path.of(path), mode, origin);
    }

    @Test
    void containmentIsByDirectorySubtreeNeverByStringPrefix() {
        Ruleset rs = Ruleset.of(List.of(rule("/a/b", AccessMode.RW, "core:/a/b")));
        assertThat(rs.permits(Path.of("/a/b"), Access.WRITE)).isTrue();
        assertThat(rs.permits(Path.of("/a/b/c/d"), Access.WRITE)).isTrue();
        assertThat(rs.permits(Path.of("/a/bc"), Access.READ)).isFalse();
        assertThat(rs.permits(Path.of("/a"), Access.READ)).isFalse();
        assertThat(rs.granted(Path.of("/a/bc/d"))).isEqualTo(AccessMode.NONE);
    }

    @Test
    void eachBitGrantsItsAccessAlone() {
        Ruleset rs = Ruleset.of(List.of(rule("/etc", AccessMode.R, "core:/etc")));
        assertThat(rs.permits(Path.of("/etc/passwd"), Access.READ)).isTrue();
        assertThat(rs.permits(Path.of("/etc/passwd"), Access.WRITE)).isFalse();
        assertThat(rs.permits(Path.of("/etc/passwd"), Access.EXEC)).isFalse();
    }

    @Test
    void grantsUnionAcrossAncestors() {
        Ruleset rs = Ruleset.of(List.of(
                rule("/usr", AccessMode.RX, "core:/usr"),
                rule("/usr/local/cache", AccessMode.RW, "spell:go")));
        assertThat(rs.granted(Path.of("/usr/local/cache/x"))).isEqualTo(AccessMode.RWX);
        assertThat(rs.granted(Path.of("/usr/local/bin/go"))).isEqualTo(AccessMode.RX);
        assertThat(rs.granted(Path.of("/usr/local/cachex"))).isEqualTo(AccessMode.RX);
    }

    @Test
    void aRuleOnTheRootCoversEverything() {
        Ruleset rs = Ruleset.of(List.of(rule("/", AccessMode.R, "test:/")));
        assertThat(rs.permits(Path.of("/"), Access.READ)).isTrue();
        assertThat(rs.permits(Path.of("/any/where"), Access.READ)).isTrue();
        assertThat(rs.permits(Path.of("/any/where"), Access.WRITE)).isFalse();
    }

    @Test
    void samePathMergesModesAndOrigins() {
        Ruleset rs = Ruleset.of(List.of(
                rule("/opt/tool", AccessMode.RX, "spell:go"),
                rule("/opt/tool/", AccessMode.RW, "target:test"),
                rule("/opt/tool", AccessMode.R, "spell:go"),
                rule("/b", AccessMode.R, "core:/b")));
        assertThat(rs.rules()).containsExactly(
                rule("/b", AccessMode.R, "core:/b"),
                rule("/opt/tool", AccessMode.RWX, "spell:go, target:test"));
        assertThat(rs.granted(Path.of("/opt/tool/bin"))).isEqualTo(AccessMode.RWX);
    }

    @Test
    void rulesAreSortedByPathAndUnmodifiable() {
        Ruleset rs = Ruleset.of(List.of(rule("/z", AccessMode.R, "z"), rule("/a/b", AccessMode.R, "ab"), rule("/a", AccessMode.R, "a")));
        assertThat(rs.rules()).extracting(r -> r.path().toString()).containsExactly("/a", "/a/b", "/z");
        assertThatThrownBy(() -> rs.rules().add(rule("/q", AccessMode.R, "q"))).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void emptyRulesetGrantsNothingAndHintsNothing() {
        Ruleset rs = Ruleset.of(List.of());
        assertThat(rs.isEmpty()).isTrue();
        assertThat(rs.granted(Path.of("/x"))).isEqualTo(AccessMode.NONE);
        assertThat(rs.nearest(Path.of("/x"), Access.READ)).isEmpty();
    }

    @Test
    void nearestPrefersTheDeepestContainingRuleThatLacksTheBit() {
        Rule ws = rule("/home/u/ws", AccessMode.RWX, "core:workspace");
        Rule home = rule("/home/u", AccessMode.R, "workspace:home-ro");
        Rule docs = rule("/home/u/ws/docs", AccessMode.R, "target:docs");
        Ruleset rs = Ruleset.of(List.of(ws, home, docs));
        // A write into ~/.npmrc: inside the read-only home rule, which lacks w.
        assertThat(rs.nearest(Path.of("/home/u/.npmrc"), Access.WRITE)).contains(home);
        // An exec under docs: docs lacks x, and it is deeper than home.
        assertThat(rs.nearest(Path.of("/home/u/ws/docs/run.sh"), Access.EXEC)).contains(docs);
    }

    @Test
    void nearestElseNamesTheRuleSharingTheLongestPrefix() {
        Rule goBuild = rule("/home/u/.cache/go-build", AccessMode.RW, "spell:go");
        Rule magus = rule("/home/u/.cache/magus", AccessMode.RW, "core:cache");
        Rule ws = rule("/home/u/src/ws", AccessMode.RWX, "core:workspace");
        Rule usr = rule("/usr", AccessMode.RX, "core:/usr");
        Ruleset rs = Ruleset.of(List.of(goBuild, magus, ws, usr));
        // ~/.cache/go shares /home/u/.cache with two rules: the first by path is named.
        assertThat(rs.nearest(Path.of("/home/u/.cache/go/mod"), Access.WRITE)).contains(goBuild);
        assertThat(rs.nearest(Path.of("/home/u/.npmrc"), Access.READ)).contains(goBuild);
        assertThat(rs.nearest(Path.of("/home/u/src/other"), Access.READ)).contains(ws);
        // A request above a rule names that rule.
        assertThat(rs.nearest(Path.of("/home/u/src"), Access.READ)).contains(ws);
        // Nothing in common but the root: no hint.
        assertThat(rs.nearest(Path.of("/tmp/x"), Access.READ)).isEmpty();
    }

    @Test
    void nearestPrefersTheShallowestRuleAmongThoseSharingThePrefix() {
        Rule deep = rule("/a/a/a/a", AccessMode.R, "deep");
        Rule shallow = rule("/a/z", AccessMode.R, "shallow");
        Ruleset rs = Ruleset.of(List.of(deep, shallow));
        assertThat(rs.nearest(Path.of("/a/m"), Access.READ)).contains(shallow);
    }

    @Test
    void lookupsRefuseRelativePaths() {
        Ruleset rs = Ruleset.of(List.of(rule("/a", AccessMode.R, "a")));
        assertThatThrownBy(() -> rs.granted(Path.of("a"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> rs.nearest(Path.of("a"), Access.READ)).isInstanceOf(IllegalArgumentException.class);
    }

    // --- the index against a naive linear reference -------------------------------------

    /** The definition of every lookup, by a linear scan over the merged rules. */
    private record Naive(List<Rule> rules) {
        AccessMode granted(Path p) {
            AccessMode m = AccessMode.NONE;
            for (Rule r : rules) {
                if (p.startsWith(r.path())) {
                    m = m.union(r.mode());
                }
            }
            return m;
        }

        Optional<Rule> nearest(Path p, Access a) {
            Rule lacking = null;
            Rule sharing = null;
            int best = 0;
            for (Rule r : rules) {
                int common = common(r.path(), p);
                boolean contains = common == r.path().getNameCount();
                if (contains && !r.mode().has(a)
                        && (lacking == null || r.path().getNameCount() > lacking.path().getNameCount())) {
                    lacking = r;
                }
                if (common > best || (common == best && sharing != null && SHALLOWEST_THEN_PATH.compare(r, sharing) < 0)) {
                    best = common;
                    sharing = r;
                }
            }
            if (lacking != null) {
                return Optional.of(lacking);
            }
            return best == 0 ? Optional.empty() : Optional.of(sharing);
        }

        private static final Comparator<Rule> SHALLOWEST_THEN_PATH =
                Comparator.<Rule>comparingInt(r -> r.path().getNameCount()).thenComparing(Rule::path);

        static int common(Path a, Path b) {
            int n = 0;
            while (n < a.getNameCount() && n < b.getNameCount() && a.getName(n).equals(b.getName(n))) {
                n++;
            }
            return n;
        }
    }

    private static final String[] NAMES = {"a", "b", "c", "ab", "a.b", "usr", "home", "x", "cache", "bc"};
    private static final AccessMode[] MODES = {AccessMode.R, AccessMode.RW, AccessMode.RX, AccessMode.RWX,
            AccessMode.of(Access.WRITE), AccessMode.of(Access.EXEC)};

    /** Top-level names are many and deeper ones few, so that grants stay sparse and varied. */
    private static Path randomPath(Random rnd, int depth) {
        if (depth == 0) {
            return Path.of("/");
        }
        StringBuilder sb = new StringBuilder("/t").append(rnd.nextInt(40));
        for (int i = 1; i < depth; i++) {
            sb.append('/').append(NAMES[rnd.nextInt(NAMES.length)]);
        }
        return Path.of(sb.toString());
    }

    @Property(tries = 6)
    void tenThousandRulesAnswerLikeTheLinearReference(@ForAll long seed, @ForAll @IntRange(min = 0, max = 3) int spread) {
        Random rnd = new Random(seed);
        List<Rule> rules = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            // Mostly deep rules, a few shallow ones; fewer distinct paths than rules, so merging is exercised too.
            int depth = rnd.nextInt(200) == 0 ? 1 : 3 + rnd.nextInt(2 + spread);
            rules.add(new Rule(randomPath(rnd, depth), MODES[rnd.nextInt(MODES.length)], "r" + rnd.nextInt(5)));
        }
        Ruleset rs = Ruleset.of(rules);
        Naive naive = new Naive(rs.rules());
        assertThat(rs.rules().stream().map(Rule::path).distinct().count()).isEqualTo(rs.rules().size());
        for (int q = 0; q < 120; q++) {
            Path p = randomPath(rnd, rnd.nextInt(8));
            AccessMode expected = naive.granted(p);
            assertThat(rs.granted(p)).as("granted %s", p).isEqualTo(expected);
            for (Access a : Access.values()) {
                assertThat(rs.permits(p, a)).isEqualTo(expected.has(a));
                Optional<Rule> hint = naive.nearest(p, a);
                assertThat(rs.nearest(p, a)).as("nearest %s %s", p, a).isEqualTo(hint);
                Statistics.label("permits").collect(expected.has(a));
                Statistics.label("hint").collect(hint.isEmpty() ? "none"
                        : p.startsWith(hint.get().path()) ? "containing rule lacking the bit" : "sharing a prefix");
            }
        }
        Statistics.label("permits").coverage(c -> {
            c.check(true).percentage(pct -> pct > 5);
            c.check(false).percentage(pct -> pct > 5);
        });
        Statistics.label("hint").coverage(c -> {
            c.check("none").count(n -> n > 0);
            c.check("containing rule lacking the bit").count(n -> n > 0);
            c.check("sharing a prefix").count(n -> n > 0);
        });
    }

    @Property(tries = 200)
    void mergedModesAreTheUnionOfTheRulesGiven(@ForAll long seed) {
        Random rnd = new Random(seed);
        List<Rule> rules = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            rules.add(new Rule(randomPath(rnd, rnd.nextInt(3)), MODES[rnd.nextInt(MODES.length)], "o" + i));
        }
        Ruleset rs = Ruleset.of(rules);
        for (Rule merged : rs.rules()) {
            int bits = 0;
            for (Rule r : rules) {
                if (r.path().equals(merged.path())) {
                    bits |= r.mode().bits();
                    assertThat(merged.origin().split(", ")).contains(r.origin());
                }
            }
            assertThat(merged.mode().bits()).isEqualTo(bits);
        }
    }

    /**
     * The merge before the rewrite of {@link Ruleset#of} (a map per path, then a sort):
     * the rewrite (one stable sort, runs of one path merged) must give exactly these rules,
     * origins and their order included.
     */
    private static List<Rule> referenceMerge(List<Rule> rules) {
        java.util.Map<Path, AccessMode> modes = new java.util.LinkedHashMap<>();
        java.util.Map<Path, java.util.Set<String>> origins = new java.util.HashMap<>();
        for (Rule r : rules) {
            modes.merge(r.path(), r.mode(), AccessMode::union);
            origins.computeIfAbsent(r.path(), p -> new java.util.LinkedHashSet<>()).add(r.origin());
        }
        List<Rule> merged = new ArrayList<>();
        modes.forEach((path, mode) -> merged.add(new Rule(path, mode, String.join(", ", origins.get(path)))));
        merged.sort(Comparator.comparing(Rule::path));
        return merged;
    }

    @Property(tries = 300)
    void theRulesAreExactlyTheReferenceMerge(@ForAll long seed, @ForAll @IntRange(min = 1, max = 60) int count) {
        Random rnd = new Random(seed);
        List<Rule> rules = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            rules.add(new Rule(randomPath(rnd, rnd.nextInt(4)), MODES[rnd.nextInt(MODES.length)], "o" + rnd.nextInt(6)));
        }
        Ruleset rs = Ruleset.of(rules);
        assertThat(rs.rules()).containsExactlyElementsOf(referenceMerge(rules));
        Naive naive = new Naive(rs.rules());
        for (int q = 0; q < 20; q++) {
            Path p = randomPath(rnd, rnd.nextInt(6));
            assertThat(rs.granted(p)).as("granted %s", p).isEqualTo(naive.granted(p));
        }
    }
}
