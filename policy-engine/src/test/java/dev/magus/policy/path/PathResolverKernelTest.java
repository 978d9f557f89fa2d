package dev.magus.policy.path;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When {@link PathResolver} asks the installed {@link KernelLookup} (here the test-only
 * {@link ScriptedKernelLookup}, found through META-INF/services like a real one) and what it
 * does with the answer. The scripted answers name paths that do not exist, so a result equal
 * to one can only have come from the lookup, never from the walk.
 */
class PathResolverKernelTest {

    @TempDir
    Path tmp;

    Path t;

    @BeforeEach
    void realTemp() throws IOException {
        t = tmp.toRealPath();
    }

    @Test
    void theInstalledLookupIsFoundAndOnlyTheUncachedResolverAsksIt() {
        assertThat(new PathResolver().asksKernel()).isTrue();
        assertThat(PathResolver.walking().asksKernel()).isFalse();
        assertThat(PathResolver.caching(8).asksKernel()).isFalse();
    }

    @Test
    void aLookupThatBreaksCostsTheWalkNeverAnAnswer() throws IOException {
        Path real = Files.createDirectories(t.resolve("d"));
        try (var script = ScriptedKernelLookup.script(p -> {
            throw new IllegalStateException("a broken provider");
        })) {
            assertThat(new PathResolver().resolve(real)).isEqualTo(new Resolution.Resolved(real, true));
            assertThat(script.asked()).containsExactly(real.toString());
        }
    }

    @Test
    void anAbsoluteRequestIsAnsweredByTheKernelWhenItKnows() {
        Path asked = t.resolve("link/f");
        try (var script = ScriptedKernelLookup.script(Map.of(asked.toString(), "/nowhere/real/f"))) {
            assertThat(new PathResolver().resolve(asked))
                    .isEqualTo(new Resolution.Resolved(Path.of("/nowhere/real/f"), true));
            assertThat(script.asked()).containsExactly(asked.toString());
        }
    }

    @Test
    void aRelativeRequestIsAskedAsTheWorkingDirectoryFollowedByTheRequest() {
        try (var script = ScriptedKernelLookup.script(p -> Optional.of("/nowhere/answer"))) {
            PathResolver resolver = new PathResolver();
            Resolution.Resolved answer = new Resolution.Resolved(Path.of("/nowhere/answer"), true);
            assertThat(resolver.resolve(Path.of("a/../b"), t.resolve("cwd"))).isEqualTo(answer);
            assertThat(resolver.resolve(Path.of("x"), Path.of("/"))).isEqualTo(answer);
            assertThat(resolver.resolve(Path.of(""), t.resolve("cwd"))).isEqualTo(answer);
            // An absolute request ignores the working directory, with the kernel as without it.
            assertThat(resolver.resolve(t.resolve("abs"), Path.of("/elsewhere"))).isEqualTo(answer);
            assertThat(script.asked()).containsExactly(
                    t + "/cwd/a/../b", "/x", t + "/cwd", t + "/abs");
        }
    }

    @Test
    void noAnswerFallsBackToTheWalk() throws IOException {
        Files.createDirectories(t.resolve("real"));
        Files.createSymbolicLink(t.resolve("link"), t.resolve("real"));
        try (var script = ScriptedKernelLookup.script(Map.of())) {
            PathResolver resolver = new PathResolver();
            assertThat(resolver.resolve(t.resolve("link/missing/x")))
                    .isEqualTo(new Resolution.Resolved(t.resolve("real/missing/x"), false));
            assertThat(resolver.resolve(Path.of("link"), t))
                    .isEqualTo(new Resolution.Resolved(t.resolve("real"), true));
            assertThat(script.asked()).containsExactly(t + "/link/missing/x", t + "/link");
        }
    }

    @Test
    void anAnswerThatIsNotAnAbsolutePathIsIgnored() throws IOException {
        Files.createDirectories(t.resolve("real"));
        try (var script = ScriptedKernelLookup.script(p -> Optional.of("pipe:[1234]"))) {
            assertThat(new PathResolver().resolve(t.resolve("real")))
                    .isEqualTo(new Resolution.Resolved(t.resolve("real"), true));
            assertThat(script.asked()).hasSize(1);
        }
    }

    @Test
    void theWalkingAndTheCachingResolverNeverAskTheKernel() throws IOException {
        Files.createDirectories(t.resolve("real"));
        Files.createSymbolicLink(t.resolve("link"), t.resolve("real"));
        try (var script = ScriptedKernelLookup.script(p -> Optional.of("/nowhere/answer"))) {
            for (PathResolver resolver : new PathResolver[] {PathResolver.walking(), PathResolver.caching(8)}) {
                assertThat(resolver.resolve(t.resolve("link")))
                        .isEqualTo(new Resolution.Resolved(t.resolve("real"), true));
                assertThat(resolver.resolve(Path.of("link/missing"), t))
                        .isEqualTo(new Resolution.Resolved(t.resolve("real/missing"), false));
            }
            assertThat(script.asked()).isEmpty();
        }
    }

    @Test
    void aPlainPathTheKernelFindsNoLinkInIsItsOwnAnswerWithoutRealPath() {
        // The path does not exist: an existing answer can only come from the lookup.
        Path asked = t.resolve("nowhere/plain");
        try (var script = ScriptedKernelLookup.script(p -> Optional.of("/elsewhere"))
                .unlinked(p -> KernelLookup.Unlinked.YES)) {
            PathResolver resolver = new PathResolver();
            assertThat(resolver.resolve(asked)).isEqualTo(new Resolution.Resolved(asked, true));
            assertThat(resolver.trace(asked)).isEqualTo(new Traced(new Resolution.Resolved(asked, true), java.util.List.of()));
            assertThat(script.asked()).isEmpty();
            assertThat(script.askedUnlinked()).containsExactly(asked.toString(), asked.toString());
        }
    }

    @Test
    void aLinkedPathIsAskedOfRealPathWhenResolvedAndWalkedWhenTraced() throws IOException {
        Files.createDirectories(t.resolve("real"));
        Files.createSymbolicLink(t.resolve("link"), t.resolve("real"));
        Path asked = t.resolve("link");
        try (var script = ScriptedKernelLookup.script(p -> Optional.of("/nowhere/real"))
                .unlinked(p -> KernelLookup.Unlinked.LINKED)) {
            PathResolver resolver = new PathResolver();
            assertThat(resolver.resolve(asked)).isEqualTo(new Resolution.Resolved(Path.of("/nowhere/real"), true));
            // The trace walks at once: a linked spelling is never its own real path.
            assertThat(resolver.trace(asked))
                    .isEqualTo(new Traced(new Resolution.Resolved(t.resolve("real"), true), java.util.List.of(asked)));
            assertThat(script.asked()).containsExactly(asked.toString());
        }
    }

    @Test
    void anAbsentPathIsWalkedWithoutRealPath() throws IOException {
        Files.createDirectories(t.resolve("real"));
        Path asked = t.resolve("real/missing");
        try (var script = ScriptedKernelLookup.script(p -> Optional.of("/nowhere/answer"))
                .unlinked(p -> KernelLookup.Unlinked.ABSENT)) {
            PathResolver resolver = new PathResolver();
            assertThat(resolver.resolve(asked)).isEqualTo(new Resolution.Resolved(asked, false));
            assertThat(resolver.trace(asked).resolution()).isEqualTo(new Resolution.Resolved(asked, false));
            assertThat(script.asked()).isEmpty();
        }
    }

    @Test
    void onlyAPlainSpellingIsAskedWhetherItIsUnlinked() {
        try (var script = ScriptedKernelLookup.script(p -> Optional.of("/nowhere/answer"))
                .unlinked(p -> KernelLookup.Unlinked.YES)) {
            PathResolver resolver = new PathResolver();
            Resolution.Resolved answer = new Resolution.Resolved(Path.of("/nowhere/answer"), true);
            assertThat(resolver.resolve(Path.of("a/../b"), t)).isEqualTo(answer);
            assertThat(resolver.resolve(Path.of("./b"), t)).isEqualTo(answer);
            assertThat(resolver.resolve(Path.of(""), t)).isEqualTo(new Resolution.Resolved(t, true));
            assertThat(script.askedUnlinked()).containsExactly(t.toString());
            assertThat(script.asked()).containsExactly(t + "/a/../b", t + "/./b");
        }
    }

    @Test
    void aBrokenOrSilentUnlinkedAnswerFallsBackToRealPath() {
        Path asked = t.resolve("x");
        for (java.util.function.Function<String, KernelLookup.Unlinked> broken : java.util.List.<java.util.function.Function<String, KernelLookup.Unlinked>>of(
                p -> null, p -> KernelLookup.Unlinked.UNKNOWN, p -> {
                    throw new IllegalStateException("broken");
                })) {
            try (var script = ScriptedKernelLookup.script(p -> Optional.of("/nowhere/answer")).unlinked(broken)) {
                assertThat(new PathResolver().resolve(asked)).isEqualTo(new Resolution.Resolved(Path.of("/nowhere/answer"), true));
                assertThat(script.asked()).containsExactly(asked.toString());
            }
        }
    }

    @Test
    void plainMeansAbsoluteWithNoEmptyDotOrDotDotComponent() {
        assertThat(KernelAsk.isPlain("/")).isTrue();
        assertThat(KernelAsk.isPlain("/a")).isTrue();
        assertThat(KernelAsk.isPlain("/a/b.c/..d/.e/d e")).isTrue();
        for (String not : new String[] {"", "a", "a/b", "//", "/a/", "/a//b", "/.", "/..", "/a/.", "/a/..", "/a/./b", "/a/../b"}) {
            assertThat(KernelAsk.isPlain(not)).as(not).isFalse();
        }
    }
}
