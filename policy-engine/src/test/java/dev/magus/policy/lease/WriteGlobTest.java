package dev.magus.policy.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.Code;
import dev.magus.events.SandboxException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.AlphaChars;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WriteGlobTest {

    private static List<String> path(String p) {
        return p.isEmpty() ? List.of() : Arrays.asList(p.split("/"));
    }

    @ParameterizedTest(name = "{0} covers {1}: {2}")
    @CsvSource({
            "src/**, src, true",
            "src/**, src/a/b/c.java, true",
            "src/**, srcx/a, false",
            "src/**, '', false",
            "docs/*.md, docs/a.md, true",
            "docs/*.md, docs/.hidden.md, true",
            "docs/*.md, docs/a.txt, false",
            "docs/*.md, docs/sub/a.md, false",
            "docs/*.md, docs, false",
            "docs/*.md, docs/a.md/inner, true",
            "a/b.txt, a/b.txt, true",
            "a/b.txt, a/b.txtx, false",
            "a/b.txt, a, false",
            "build, build/out/x.o, true",
            "**/*.java, Main.java, true",
            "**/*.java, a/b/Main.java, true",
            "**/*.java, a/b/Main.jav, false",
            "src/**/test/*.py, src/test/t.py, true",
            "src/**/test/*.py, src/a/b/test/t.py, true",
            "src/**/test/*.py, src/a/b/tes/t.py, false",
            "a?c/x, abc/x, true",
            "a?c/x, ac/x, false",
            "*, anything/at/all, true",
            "**, '', true",
            "**, a/b, true",
            "a/**/b/**, a/b, true",
            "a/**/b/**, a/x/y/b/z, true",
            "a/**/b/**, a/x/y/c/z, false",
    })
    void coversTheMatchAndEverythingBeneathIt(String glob, String path, boolean covered) {
        assertThat(WriteGlob.parse(glob, "test").covers(path(path))).isEqualTo(covered);
    }

    @ParameterizedTest(name = "{0} is refused: {1}")
    @CsvSource({
            "/etc/passwd, absolute",
            "../x, '..'",
            "src/../../x, '..'",
            "'', empty",
            "'   ', empty",
            "., checkout root",
            "./, checkout root",
            "src/a**, whole component",
            "src/[ab].c, not supported",
            "'src/{a,b}', not supported",
            "a\\*b, not supported",
    })
    void refusesWhatCannotBeHonoredWithMgs2004NamingTheSource(String glob, String why) {
        assertThatThrownBy(() -> WriteGlob.parse(glob, "--write"))
                .isInstanceOfSatisfying(SandboxException.class, e -> {
                    assertThat(e.code()).isEqualTo(Code.MGS2004);
                    assertThat(e.diagnostic().source()).isEqualTo("--write");
                    assertThat(e.diagnostic().message()).contains(why);
                });
    }

    @ParameterizedTest
    @CsvSource({"'a\u0000b'"})
    void refusesANul(String glob) {
        assertThatThrownBy(() -> WriteGlob.parse(glob, "jobs.db"))
                .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.diagnostic().message()).contains("NUL"));
    }

    @ParameterizedTest
    @CsvSource({"./src//x/, src/x", "src/**/, src/**"})
    void normalizesEmptyAndDotComponents(String glob, String normal) {
        assertThat(WriteGlob.parse(glob, "t").text()).isEqualTo(normal);
    }

    @ParameterizedTest
    @CsvSource({"src/**, src, true, false", "docs/*.md, docs, false, false", "a/b.txt, a/b.txt, false, true",
            "**/*.java, '', false, false", "**, '', true, false", "a/*/b/**, a, false, false"})
    void fixedPrefixAndShape(String glob, String prefix, boolean subtree, boolean literal) {
        WriteGlob g = WriteGlob.parse(glob, "t");
        assertThat(g.fixedPrefix()).isEqualTo(path(prefix));
        assertThat(g.coversPrefixSubtree()).isEqualTo(subtree);
        assertThat(g.literal()).isEqualTo(literal);
    }

    @Property
    void aLiteralGlobCoversExactlyThePathsItIsAPrefixOf(@ForAll @Size(min = 1, max = 4) List<@AlphaChars @StringLength(min = 1, max = 3) String> glob,
                                                      @ForAll @Size(max = 5) List<@AlphaChars @StringLength(min = 1, max = 3) String> path) {
        boolean prefix = path.size() >= glob.size() && path.subList(0, glob.size()).equals(glob);
        assertThat(WriteGlob.parse(String.join("/", glob), "t").covers(path)).isEqualTo(prefix);
    }

    @Property
    void coverageIsInheritedByEverythingBeneath(@ForAll("globs") String glob,
                                                 @ForAll @Size(max = 4) List<@AlphaChars @StringLength(min = 1, max = 2) String> path,
                                                 @ForAll @AlphaChars @StringLength(min = 1, max = 2) String child) {
        WriteGlob g = WriteGlob.parse(glob, "t");
        List<String> deeper = new ArrayList<>(path);
        deeper.add(child);
        if (g.covers(path)) {
            assertThat(g.covers(deeper)).as("%s covers %s, so also %s", glob, path, deeper).isTrue();
        }
    }

    @net.jqwik.api.Provide
    net.jqwik.api.Arbitrary<String> globs() {
        net.jqwik.api.Arbitrary<String> segment = net.jqwik.api.Arbitraries.of("a", "b", "ab", "*", "a*", "?", "**", "*b");
        return segment.list().ofMinSize(1).ofMaxSize(4).map(l -> String.join("/", l))
                .filter(s -> !s.contains("***"));
    }
}
