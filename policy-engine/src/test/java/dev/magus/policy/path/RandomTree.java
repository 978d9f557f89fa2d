package dev.magus.policy.path;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Random trees of directories, files and symbolic links (relative and absolute targets,
 * dangling ones and loops alike) for the property tests that compare resolution and checks
 * with a reference on real filesystems.
 */
public final class RandomTree {
    private RandomTree() {
    }

    /**
     * Creates 3 to 14 entries under {@code root}, named from {@code names}, and says what it made
     * in {@code description} (for failure messages).
     *
     * @return the entries created
     */
    public static List<Path> build(Random rnd, String[] names, Path root, List<String> description) throws IOException {
        List<Path> dirs = new ArrayList<>(List.of(root));
        List<Path> entries = new ArrayList<>();
        int n = 3 + rnd.nextInt(12);
        for (int i = 0; i < n; i++) {
            Path parent = dirs.get(rnd.nextInt(dirs.size()));
            Path p = parent.resolve(names[rnd.nextInt(names.length)]);
            if (Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            int kind = rnd.nextInt(10);
            String rel = root.relativize(p).toString();
            if (kind < 4) {
                Files.createDirectory(p);
                dirs.add(p);
                description.add(rel + "/");
            } else if (kind < 6) {
                Files.writeString(p, "x");
                description.add(rel);
            } else {
                String target = components(rnd, names, 1 + rnd.nextInt(3));
                if (rnd.nextInt(3) == 0) {
                    target = root + "/" + target;
                }
                Files.createSymbolicLink(p, Path.of(target));
                description.add(rel + " -> " + target);
            }
            entries.add(p);
        }
        return entries;
    }

    /** {@code count} components from {@code names}, {@code .} and {@code ..}, sometimes joined by {@code //}. */
    public static String components(Random rnd, String[] names, int count) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                sb.append(rnd.nextInt(8) == 0 ? "//" : "/");
            }
            int pick = rnd.nextInt(names.length + 3);
            sb.append(pick < names.length ? names[pick] : pick == names.length ? "." : "..");
        }
        return sb.toString();
    }

    /** Removes {@code base} and everything beneath it, links included (never followed). */
    public static void delete(Path base) throws IOException {
        try (Stream<Path> walk = Files.walk(base)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
