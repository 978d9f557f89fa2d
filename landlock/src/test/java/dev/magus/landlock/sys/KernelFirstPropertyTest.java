package dev.magus.landlock.sys;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.policy.path.PathResolver;
import dev.magus.policy.path.Resolution;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;

/**
 * On random trees of directories, files and links (relative, absolute, dangling, looping,
 * climbing with {@code ..}, demanding a directory with a trailing {@code /.}), the uncached
 * resolver, which asks {@link ProcFdLookup} first, answers every request exactly as the walk.
 */
class KernelFirstPropertyTest {

    private static final String[] NAMES = {"a", "b", "c", "d e"};

    private final PathResolver kernelFirst = new PathResolver();
    private final PathResolver walk = PathResolver.walking();
    private final ProcFdLookup lookup = new ProcFdLookup();

    @BeforeContainer
    static void linuxOnly() {
        KernelLookupHost.assumeLinuxAndLoadNatives();
    }

    @Property(tries = 150)
    void answersAsTheWalkOnRandomTrees(@ForAll long seed) throws IOException {
        assertThat(kernelFirst.asksKernel()).isTrue();
        Random rnd = new Random(seed);
        // Nested so that targets climbing out with .. mostly stay inside this test's directory.
        Path base = Files.createTempDirectory("kernel-first").toRealPath();
        Path root = Files.createDirectories(base.resolve("x/y/tree"));
        try {
            List<String> tree = new ArrayList<>();
            List<Path> entries = build(rnd, root, tree);
            for (int i = 0; i < 40; i++) {
                Path q = i < entries.size() ? entries.get(i) : Path.of(root + "/" + components(rnd, 1 + rnd.nextInt(6)));
                compare(q.toString(), kernelFirst.resolve(q), walk.resolve(q), tree);
                // A trace takes the kernel's answer only when no link was followed: the same links as the walk's.
                assertThat(kernelFirst.trace(q)).as("trace of " + q + " with tree " + tree).isEqualTo(walk.trace(q));
            }
            for (int i = 0; i < 20; i++) {
                Path cwd = entries.isEmpty() || rnd.nextInt(3) == 0 ? root : entries.get(rnd.nextInt(entries.size()));
                Path rel = Path.of(components(rnd, 1 + rnd.nextInt(4)));
                compare(cwd + "/" + rel, kernelFirst.resolve(rel, cwd), walk.resolve(rel, cwd), tree);
                assertThat(kernelFirst.trace(rel, cwd)).as("trace of " + rel + " in " + cwd + " with tree " + tree)
                        .isEqualTo(walk.trace(rel, cwd));
            }
        } finally {
            delete(base);
        }
        // Both sides of the fast path must have been exercised, or the property proves little.
        Statistics.coverage(coverage -> {
            coverage.check("kernel answered").count(c -> c > 1000);
            coverage.check("walk: missing or not a directory").count(c -> c > 1000);
            coverage.check("walk: too many links").count(c -> c > 10);
        });
    }

    private void compare(String asked, Resolution got, Resolution walked, List<String> tree) {
        assertThat(got).as(asked + " with tree " + tree).isEqualTo(walked);
        if (lookup.realPath(asked).isPresent()) {
            Statistics.collect("kernel answered");
        } else if (walked instanceof Resolution.TooManyLinks) {
            Statistics.collect("walk: too many links");
        } else if (walked.existing()) {
            Statistics.collect("walk: exists");
        } else {
            Statistics.collect("walk: missing or not a directory");
        }
    }

    /** 3 to 14 entries under {@code root}; says what it made in {@code tree}. */
    private static List<Path> build(Random rnd, Path root, List<String> tree) throws IOException {
        List<Path> dirs = new ArrayList<>(List.of(root));
        List<Path> entries = new ArrayList<>();
        int n = 3 + rnd.nextInt(12);
        for (int i = 0; i < n; i++) {
            Path p = dirs.get(rnd.nextInt(dirs.size())).resolve(NAMES[rnd.nextInt(NAMES.length)]);
            if (Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            int kind = rnd.nextInt(10);
            String rel = root.relativize(p).toString();
            if (kind < 4) {
                Files.createDirectory(p);
                dirs.add(p);
                tree.add(rel + "/");
            } else if (kind < 6) {
                Files.writeString(p, "x");
                tree.add(rel);
            } else {
                String target = components(rnd, 1 + rnd.nextInt(3));
                if (rnd.nextInt(3) == 0) {
                    target = root + "/" + target;
                }
                if (rnd.nextInt(6) == 0) {
                    target += "/.";
                }
                Files.createSymbolicLink(p, Path.of(target));
                tree.add(rel + " -> " + target);
            }
            entries.add(p);
        }
        return entries;
    }

    /** {@code count} components from the names, {@code .} and {@code ..}, sometimes joined by {@code //}. */
    private static String components(Random rnd, int count) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                sb.append(rnd.nextInt(8) == 0 ? "//" : "/");
            }
            int pick = rnd.nextInt(NAMES.length + 3);
            sb.append(pick < NAMES.length ? NAMES[pick] : pick == NAMES.length ? "." : "..");
        }
        return sb.toString();
    }

    private static void delete(Path base) throws IOException {
        try (Stream<Path> all = Files.walk(base)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
