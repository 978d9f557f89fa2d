package dev.magus.bench.path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.policy.path.PathResolver;
import dev.magus.policy.path.Resolution;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** The fixtures measure what they claim: the links are there, and every baseline lands where the kernel would. */
class LinkTreeTest {

    @ParameterizedTest
    @ValueSource(strings = {"c2-l0-abs", "c6-l2-abs", "c12-l5-rel", "c2-l5-abs", "c6-l2-rel-missing",
            "c6-l2-abs-dotdot", "c6-l2-rel-dotdot", "c6-l2-abs-cwd"})
    void everyResolverLandsOnTheExpectedPathThroughTheNamedLinks(String text) throws Exception {
        Scenario s = Scenario.parse(text);
        try (LinkTree tree = LinkTree.build(s)) {
            Path absolute = tree.cwd().resolve(tree.request());
            Resolution r = new PathResolver().resolve(tree.request(), tree.cwd());

            assertThat(r.resolvedPath()).contains(tree.expected());
            assertThat(PathResolver.walking().resolve(tree.request(), tree.cwd())).isEqualTo(r);
            assertThat(r.existing()).isEqualTo(s.tail() != Scenario.Tail.MISSING);
            assertThat(RealPath.resolve(absolute)).isEqualTo(tree.expected());
            assertThat(tree.request().isAbsolute()).isEqualTo(s.tail() != Scenario.Tail.CWD);
            assertThat(linksOnTheWay(absolute)).isEqualTo(s.links());
            if (s.tail() == Scenario.Tail.DOTDOT) {
                // The naive walk takes link/.. lexically and misses; the reason the resolver exists.
                assertThat(NaiveWalk.resolve(absolute)).isNotEqualTo(tree.expected());
            } else {
                assertThat(NaiveWalk.resolve(absolute)).isEqualTo(tree.expected());
            }
        }
    }

    @Test
    void theTreeIsGoneAfterClose() {
        LinkTree tree = LinkTree.build(Scenario.parse("c6-l5-rel"));
        Path cwd = tree.cwd();
        tree.close();
        assertThat(Files.exists(cwd)).isFalse();
    }

    @Test
    void malformedScenariosAreRefused() {
        assertThatThrownBy(() -> Scenario.parse("c6-l2")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Scenario.parse("c6-l2-sideways")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Scenario.parse("c6-l0-abs-dotdot")).isInstanceOf(IllegalArgumentException.class);
    }

    /** Counts the links a kernel-style walk of {@code absolute} meets, following chains. */
    private static int linksOnTheWay(Path absolute) throws Exception {
        int links = 0;
        Path dir = absolute.getRoot();
        java.util.Deque<String> pending = new java.util.ArrayDeque<>();
        for (Path name : absolute) {
            pending.addLast(name.toString());
        }
        while (!pending.isEmpty()) {
            String name = pending.removeFirst();
            if (name.equals("..")) {
                dir = dir.getParent();
                continue;
            }
            Path next = dir.resolve(name);
            if (Files.isSymbolicLink(next)) {
                links++;
                Path target = Files.readSymbolicLink(next);
                if (target.isAbsolute()) {
                    dir = target.getRoot();
                }
                java.util.List<String> parts = new java.util.ArrayList<>();
                target.forEach(p -> parts.add(p.toString()));
                for (int i = parts.size() - 1; i >= 0; i--) {
                    pending.addFirst(parts.get(i));
                }
            } else if (Files.exists(next)) {
                dir = next;
            } else {
                break;
            }
        }
        return links;
    }
}
