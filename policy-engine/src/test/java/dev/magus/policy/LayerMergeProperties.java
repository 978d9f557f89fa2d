package dev.magus.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.env.Allowlist;
import dev.magus.policy.decl.DeclLayer;
import dev.magus.policy.decl.SandboxAllow;
import dev.magus.policy.decl.SandboxDecl;
import dev.magus.policy.fs.AccessMode;
import dev.magus.events.Mode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/** "The layers merge; none narrows another", for random declarations over a fixed tree. */
class LayerMergeProperties {
    private static final List<String> DIRS = List.of("a", "a/b", "a/b/c", "a/d", "e", "e/f");
    private static final List<String> MODES = List.of("ro", "rw", "rx", "rwx");
    private static Path tmp;
    private static FakeHost host;

    @BeforeContainer
    static void tree() throws IOException {
        tmp = Files.createTempDirectory("layer-merge");
        host = new FakeHost(tmp);
        for (String d : DIRS) {
            FakeHost.mkdirs(host.root.resolve("pool").resolve(d));
        }
    }

    @AfterContainer
    static void clean() throws IOException {
        try (Stream<Path> walk = Files.walk(tmp)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    record Entry(String dir, String mode) {
    }

    @Provide
    Arbitrary<List<Entry>> entries() {
        return Combinators.combine(Arbitraries.of(DIRS), Arbitraries.of(MODES)).as(Entry::new).list().ofMaxSize(4);
    }

    private static SandboxDecl decl(DeclLayer layer, List<Entry> entries) {
        List<SandboxAllow> allow = new ArrayList<>();
        for (Entry e : entries) {
            allow.add(FakeHost.allow(layer, host.root.resolve("pool").resolve(e.dir()).toString(), e.mode()));
        }
        return new SandboxDecl(allow, Allowlist.EMPTY, layer);
    }

    private static Policy policy(SandboxDecl ws, List<SandboxDecl> spells, Optional<SandboxDecl> target) {
        return (Policy) new PolicyBuilder(host.facts()).build(Mode.BEST_EFFORT, host.ws, ws, spells, target);
    }

    @Property(tries = 60)
    void everyPathGetsTheUnionOfTheModesAboveItAndALaterLayerOnlyAdds(
            @ForAll("entries") List<Entry> ws, @ForAll("entries") List<Entry> spell, @ForAll("entries") List<Entry> target) {
        SandboxDecl w = decl(DeclLayer.workspace(), ws);
        SandboxDecl s = decl(DeclLayer.spell("s"), spell);
        SandboxDecl t = decl(DeclLayer.target("t"), target);
        Policy without = policy(w, List.of(s), Optional.empty());
        Policy with = policy(w, List.of(s), Optional.of(t));
        List<Entry> all = new ArrayList<>(ws);
        all.addAll(spell);
        all.addAll(target);
        for (String d : DIRS) {
            Path p = host.root.resolve("pool").resolve(d).resolve("file");
            AccessMode expected = AccessMode.NONE;
            for (Entry e : all) {
                if (Path.of(d).startsWith(Path.of(e.dir()))) {
                    expected = expected.union(AccessMode.parseDeclared(e.mode()).orElseThrow());
                }
            }
            assertThat(with.ruleset().granted(p)).as(d).isEqualTo(expected);
            assertThat(with.ruleset().granted(p).covers(without.ruleset().granted(p))).as(d).isTrue();
        }
    }
}
