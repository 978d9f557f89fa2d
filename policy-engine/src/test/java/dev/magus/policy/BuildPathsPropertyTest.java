package dev.magus.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.policy.path.PathResolver;
import dev.magus.policy.path.RandomTree;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.statistics.Statistics;

/**
 * The per-build memo is transparent: on random trees of directories, files and links, any
 * sequence of resolutions and traces, repeated paths and a resolution answering a later trace
 * included, answers exactly what an uncached resolver answers for each call.
 */
class BuildPathsPropertyTest {

    private static final String[] NAMES = {"a", "b", "c", "d"};

    @Property(tries = 100)
    void theMemoAnswersAsTheResolverForEveryCall(@ForAll long seed) throws IOException {
        Random rnd = new Random(seed);
        Path base = Files.createTempDirectory("build-paths").toRealPath();
        try {
            Path tree = Files.createDirectories(base.resolve("x/y/tree"));
            List<String> description = new ArrayList<>();
            List<Path> entries = RandomTree.build(rnd, NAMES, tree, description);
            List<Path> asked = new ArrayList<>(entries);
            for (int i = 0; i < 8; i++) {
                asked.add(Path.of(tree + "/" + RandomTree.components(rnd, NAMES, 1 + rnd.nextInt(5))));
            }
            BuildPaths memo = new BuildPaths(new PathResolver());
            PathResolver fresh = PathResolver.walking();
            for (int i = 0; i < 60; i++) {
                Path p = asked.get(rnd.nextInt(asked.size()));
                String context = p + " with tree " + description;
                if (rnd.nextBoolean()) {
                    assertThat(memo.resolve(p)).as("resolve " + context).isEqualTo(fresh.resolve(p));
                    Statistics.collect("resolve");
                } else {
                    assertThat(memo.trace(p)).as("trace " + context).isEqualTo(fresh.trace(p));
                    Statistics.collect(fresh.trace(p).links().isEmpty() ? "trace, no link" : "trace through a link");
                }
            }
        } finally {
            RandomTree.delete(base);
        }
        Statistics.coverage(coverage -> {
            coverage.check("trace through a link").count(c -> c > 100);
            coverage.check("trace, no link").count(c -> c > 100);
        });
    }
}
