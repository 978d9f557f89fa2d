package dev.magus.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.env.Allowlist;
import dev.magus.policy.decl.DeclLayer;
import dev.magus.policy.decl.MergedDecl;
import dev.magus.policy.decl.SandboxAllow;
import dev.magus.policy.decl.Site;
import dev.magus.policy.fs.Access;
import dev.magus.policy.fs.AccessMode;
import dev.magus.policy.fs.Rule;
import dev.magus.events.Mode;
import dev.magus.policy.path.PathResolver;
import dev.magus.policy.path.RandomTree;
import dev.magus.policy.path.Resolution;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.statistics.Statistics;

/**
 * A declared rule path is resolved exactly as a request with the same spelling is ("Rule
 * paths are resolved the same way when the policy is built, so the two compare as one
 * string"), on random trees of directories, files and links (relative and absolute, dangling,
 * loops) with random spellings full of {@code .}, {@code ..} and {@code //}: a granted rule
 * sits where the request resolves, and a check of the rule's own spelling is allowed by it; a
 * rule that grants nothing does so because the request's resolution does not exist, loops, or
 * is home or above.
 */
class RulePathPropertyTest {

    private static final String[] NAMES = {"a", "b", "c", "d"};
    private static final int SPELLINGS = 12;

    @Property(tries = 150)
    void aRulePathResolvesAsARequestForTheSameSpelling(@ForAll long seed) throws IOException {
        Random rnd = new Random(seed);
        Path base = Files.createTempDirectory("rule-prop").toRealPath();
        try {
            FakeHost h = new FakeHost(base.resolve("host"));
            // Nested, so that spellings climbing out with .. mostly stay in this test's directories;
            // beside the workspace and home, so no link lies in a location a run can write.
            Path tree = Files.createDirectories(h.root.resolve("x/y/tree"));
            List<String> description = new ArrayList<>();
            RandomTree.build(rnd, NAMES, tree, description);
            List<String> spellings = new ArrayList<>();
            List<SandboxAllow> allow = new ArrayList<>();
            for (int i = 0; i < SPELLINGS; i++) {
                String spelled = tree + "/" + RandomTree.components(rnd, NAMES, 1 + rnd.nextInt(6));
                spellings.add(spelled);
                allow.add(SandboxAllow.declare(Optional.of("<" + i + ">"), Optional.empty(), Optional.empty(),
                        Optional.of(spelled), Optional.of("ro"), DeclLayer.spell("p"), Site.of("spell:p", "sandbox.allow[" + i + "]")));
            }
            Policy p = new PolicyBuilder(h.facts()).policy(Mode.BEST_EFFORT, h.ws, new MergedDecl(allow, Allowlist.EMPTY));
            PathResolver resolver = new PathResolver();
            for (int i = 0; i < SPELLINGS; i++) {
                String origin = "spell:p/<" + i + ">";
                String context = spellings.get(i) + " with tree " + description;
                Resolution request = resolver.resolve(Path.of(spellings.get(i)));
                List<Rule> rules = p.rules().stream().filter(r -> r.origin().contains(origin)).toList();
                Optional<PolicyNote> note = p.notes().stream().filter(n -> n.origin().equals(origin)).findFirst();
                if (request instanceof Resolution.TooManyLinks) {
                    Statistics.collect("loop");
                    assertThat(rules).as(context).isEmpty();
                    assertThat(note).as(context).hasValueSatisfying(n -> assertThat(n.why()).contains("too many symbolic links"));
                } else if (!request.existing()) {
                    Statistics.collect("missing");
                    assertThat(rules).as(context).isEmpty();
                    assertThat(note).as(context).isPresent();
                } else if (Locations.isHomeOrAncestor(request.resolvedPath().orElseThrow(), h.home)) {
                    Statistics.collect("home or above");
                    assertThat(rules).as(context).isEmpty();
                    assertThat(note).as(context).hasValueSatisfying(n -> assertThat(n.why()).contains("home directory"));
                } else {
                    Path resolved = request.resolvedPath().orElseThrow();
                    Statistics.collect(spellings.get(i).contains("..") ? "granted, spelled with .." : "granted");
                    assertThat(note).as(context).isEmpty();
                    assertThat(rules).as(context).singleElement().satisfies(r -> {
                        assertThat(r.path()).isEqualTo(resolved);
                        assertThat(r.mode().covers(AccessMode.R)).isTrue();
                    });
                    // The rule's own spelling, checked as a request, is allowed by that rule.
                    assertThat(p.check(Access.READ, Path.of(spellings.get(i)), h.ws)).as(context)
                            .isEqualTo(new Verdict.Allowed(resolved));
                }
            }
        } finally {
            RandomTree.delete(base);
        }
        Statistics.coverage(coverage -> {
            coverage.check("granted").count(c -> c > 100);
            coverage.check("granted, spelled with ..").count(c -> c > 100);
            coverage.check("missing").count(c -> c > 100);
            coverage.check("loop").count(c -> c > 3);
        });
    }
}
