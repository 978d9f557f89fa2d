package dev.magus.bench.path;

import dev.magus.bench.Fixtures;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A directory tree under a fresh temp dir in which one request of a {@link Scenario} resolves
 * through exactly the links the scenario names. Built once per trial, deleted afterwards.
 *
 * <p>Layout under the (real) root: component {@code i} of the request is entry {@code n<i>} of
 * the directory reached so far; without links it is a real directory there, with {@code k}
 * links it is a chain {@code n<i> -> chain/<i>_1 -> ... -> real/<i>}. The last component is a
 * regular file.
 */
public final class LinkTree implements AutoCloseable {
    private final Path root;
    private final Path request;
    private final Path cwd;
    private final Path expected;

    private LinkTree(Path root, Path request, Path cwd, Path expected) {
        this.root = root;
        this.request = request;
        this.cwd = cwd;
        this.expected = expected;
    }

    public static LinkTree build(Scenario s) {
        try {
            Path root = Fixtures.tempRoot("magus-bench-tree-");
            Path base = Fixtures.dirs(root.resolve("base/b1/b2"));
            Path realDir = Fixtures.dirs(root.resolve("real"));
            Path chainDir = Fixtures.dirs(root.resolve("chain"));
            int[] links = s.linksPerComponent();
            int existing = s.tail() == Scenario.Tail.MISSING ? s.components() - 2 : s.components();

            List<String> requested = new ArrayList<>();
            Path dir = base;
            boolean dotdotInserted = false;
            for (int i = 0; i < existing; i++) {
                String name = "n" + i;
                boolean last = i == s.components() - 1;
                Path entry = dir.resolve(name);
                Path target;
                if (links[i] == 0) {
                    target = entry;
                } else {
                    target = realDir.resolve(Integer.toString(i));
                    Path from = entry;
                    for (int k = 1; k <= links[i]; k++) {
                        Path to = k == links[i] ? target : chainDir.resolve(i + "_" + k);
                        Files.createSymbolicLink(from, s.absoluteTargets() ? to : from.getParent().relativize(to));
                        from = to;
                    }
                }
                if (last) {
                    Files.writeString(target, "x\n");
                } else {
                    Files.createDirectories(target);
                }
                requested.add(name);
                if (s.tail() == Scenario.Tail.DOTDOT && links[i] > 0 && !dotdotInserted && !last) {
                    // link/.. is the parent of the link's target, not dir: come back down to the target by name.
                    requested.add("..");
                    requested.add(target.getFileName().toString());
                    dotdotInserted = true;
                }
                dir = target;
            }
            Path expected = dir;
            for (int i = existing; i < s.components(); i++) {
                requested.add("m" + i);
                expected = expected.resolve("m" + i);
            }
            String joined = String.join("/", requested);
            Path request = s.tail() == Scenario.Tail.CWD ? Path.of(joined) : base.resolve(joined);
            return new LinkTree(root, request, base, expected);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The request: absolute, or relative to {@link #cwd()} for the {@code cwd} scenarios. */
    public Path request() {
        return request;
    }

    public Path cwd() {
        return cwd;
    }

    /** Where the kernel would land: what every correct resolver must answer. */
    public Path expected() {
        return expected;
    }

    @Override
    public void close() {
        Fixtures.delete(root);
    }
}
