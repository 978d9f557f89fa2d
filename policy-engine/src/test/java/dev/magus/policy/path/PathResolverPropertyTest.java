package dev.magus.policy.path;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.statistics.Statistics;

/**
 * The resolver against the C library's {@code realpath(3)} (what {@link Path#toRealPath}
 * calls on Linux) on random trees of directories, files and symbolic links, with relative
 * and absolute targets, dangling links and loops.
 */
class PathResolverPropertyTest {

    private static final String[] NAMES = {"a", "b", "c", "d"};
    /** strerror(ELOOP), which the JDK extends with "or unable to access attributes of symbolic link". */
    private static final String ELOOP = "Too many levels of symbolic links";

    private final PathResolver resolver = PathResolver.walking();

    @Property(tries = 200)
    void agreesWithToRealPathOnRandomTrees(@ForAll long seed) throws IOException {
        Random rnd = new Random(seed);
        // Nested so that targets climbing out with .. mostly land in directories of this test.
        Path base = Files.createTempDirectory("resolver-prop").toRealPath();
        Path root = Files.createDirectories(base.resolve("x/y/tree"));
        try {
            List<String> description = new ArrayList<>();
            List<Path> entries = RandomTree.build(rnd, NAMES, root, description);
            List<Path> queries = new ArrayList<>(entries);
            for (int i = 0; i < 40; i++) {
                queries.add(Path.of(root + "/" + RandomTree.components(rnd, NAMES, 1 + rnd.nextInt(6))));
            }
            // A small cache, so that it also overflows and starts over while the tree stays put.
            PathResolver cached = PathResolver.caching(16);
            PathResolver kernelFirst = new PathResolver();
            for (Path q : queries) {
                check(q, resolver.resolve(q), q, description);
                check(q, cached.resolve(q), "cached " + q, description);
                // A trace lands where a resolution does, and names only links, each where it lives.
                for (Traced t : List.of(resolver.trace(q), cached.trace(q), kernelFirst.trace(q))) {
                    if (t.resolution() instanceof Resolution.TooManyLinks) {
                        assertThat(resolver.resolve(q)).as("trace of %s with tree %s", q, description)
                                .isInstanceOf(Resolution.TooManyLinks.class);
                        continue;
                    }
                    assertThat(t.resolution()).as("trace of %s with tree %s", q, description).isEqualTo(resolver.resolve(q));
                    assertThat(t.links()).as("links of %s with tree %s", q, description)
                            .allSatisfy(l -> assertThat(Files.isSymbolicLink(l)).as(l.toString()).isTrue());
                    if (!t.links().isEmpty()) {
                        Statistics.collect("traced through links");
                    }
                }
            }
            // Relative requests against a working directory (itself possibly a link).
            for (int i = 0; i < 15; i++) {
                Path cwd = entries.isEmpty() || rnd.nextInt(3) == 0 ? root : entries.get(rnd.nextInt(entries.size()));
                Path rel = Path.of(RandomTree.components(rnd, NAMES, 1 + rnd.nextInt(4)));
                check(cwd.resolve(rel), resolver.resolve(rel, cwd), rel + " in " + cwd, description);
            }
        } finally {
            RandomTree.delete(base);
        }
        // Over all tries, every kind of outcome must have been met, or the property proves little.
        Statistics.coverage(coverage -> {
            coverage.check("exists").count(c -> c > 1000);
            coverage.check("loop").count(c -> c > 10);
            coverage.check("missing or not a directory").count(c -> c > 1000);
            coverage.check("traced through links").count(c -> c > 1000);
        });
    }

    private static void check(Path spelled, Resolution r, Object what, List<String> tree) {
        String context = what + " with tree " + tree;
        try {
            Path real = spelled.toRealPath();
            Statistics.collect("exists");
            assertThat(r).as(context).isEqualTo(new Resolution.Resolved(real, true));
        } catch (FileSystemException e) {
            if (e.getReason() != null && e.getReason().startsWith(ELOOP)) {
                Statistics.collect("loop");
                assertThat(r).as(context).isInstanceOf(Resolution.TooManyLinks.class);
            } else {
                Statistics.collect("missing or not a directory");
                // realpath stops at the first missing component; the resolver may go on after a
                // ".." that climbs back over it (and then meet a loop), but never calls it existing.
                assertThat(r.existing()).as(context + " (" + e + ")").isFalse();
            }
        } catch (IOException e) {
            throw new AssertionError(context, e);
        }
    }
}
