package dev.magus.workspace.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The text comparison of absolute paths orders exactly as the name-by-name one. */
class PathOrderTest {
    @Test
    void absolutePathsCompareAsNameByName() {
        String[] parts = {"a", "b", "a-b", "a.b", "ab", "A", "é", "z", "-", ".git", "hooks", "a b", "\u00ff", "\uffff"};
        Random r = new Random(15);
        List<Path> paths = new ArrayList<>(List.of(Path.of("/")));
        for (int i = 0; i < 400; i++) {
            StringBuilder b = new StringBuilder();
            int depth = 1 + r.nextInt(4);
            for (int d = 0; d < depth; d++) {
                b.append('/').append(parts[r.nextInt(parts.length)]);
                if (r.nextInt(5) == 0) {
                    b.append(parts[r.nextInt(parts.length)]);
                }
            }
            paths.add(Path.of(b.toString()));
        }
        for (Path x : paths) {
            for (Path y : paths) {
                assertThat(Integer.signum(PathOrder.INSTANCE.compare(x, y)))
                        .as("%s vs %s", x, y).isEqualTo(Integer.signum(PathOrder.byNames(x, y)));
            }
        }
    }

    @Test
    void aDirectoryComesRightBeforeWhatIsBeneathIt() {
        List<Path> sorted = new ArrayList<>(List.of(Path.of("/w/a-b"), Path.of("/w/a/x"), Path.of("/w/a"), Path.of("/w")));
        sorted.sort(PathOrder.INSTANCE);
        assertThat(sorted).containsExactly(Path.of("/w"), Path.of("/w/a"), Path.of("/w/a/x"), Path.of("/w/a-b"));
        // Relative paths keep the name-by-name comparison.
        assertThat(PathOrder.INSTANCE.compare(Path.of("a/x"), Path.of("a-b"))).isNegative();
    }
}
