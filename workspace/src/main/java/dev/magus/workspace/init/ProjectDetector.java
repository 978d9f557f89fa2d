package dev.magus.workspace.init;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Finds the projects of a tree: the root always, and every directory beneath it, down to
 * {@link #MAX_DEPTH} levels, that holds a marker file ({@link Markers}). Never descends into
 * what tools generate or download ({@link #SKIPPED}), into hidden directories, or through a
 * symbolic link (a link to {@code ..} would loop).
 */
public final class ProjectDetector {
    /** How many levels below the root are looked at: a monorepo's {@code services/api/cmd} is deep enough. */
    public static final int MAX_DEPTH = 4;
    /** Directories never looked into: dependencies, build output, virtual environments. */
    public static final Set<String> SKIPPED = Set.of("node_modules", "target", "vendor", "build", "dist", "out",
            "venv", "__pycache__", "bower_components", "jspm_packages");

    /** One entry of a directory listing: its name, and whether it is a directory (a link never is). */
    public record Entry(String name, boolean directory) {
    }

    /** Lists a directory; an unreadable one lists nothing. */
    public interface Lister {
        List<Entry> list(Path dir);
    }

    /** A project found: its directory relative to the root ({@code .} for the root), its spells and their markers. */
    public record Project(String dir, List<String> spells, List<String> markers) {
        public Project {
            spells = List.copyOf(spells);
            markers = List.copyOf(markers);
        }
    }

    private ProjectDetector() {
    }

    /** The projects under {@code root} on the real filesystem. */
    public static List<Project> detect(Path root) {
        return detect(root, ProjectDetector::listFiles);
    }

    /** The projects under {@code root}, the root first, then by path. */
    public static List<Project> detect(Path root, Lister lister) {
        TreeMap<String, Project> found = new TreeMap<>();
        Deque<Object[]> stack = new ArrayDeque<>();
        stack.push(new Object[] {root, 0});
        while (!stack.isEmpty()) {
            Object[] top = stack.pop();
            Path dir = (Path) top[0];
            int depth = (Integer) top[1];
            TreeSet<Integer> spells = new TreeSet<>();
            TreeSet<String> markers = new TreeSet<>();
            for (Entry e : lister.list(dir)) {
                if (e.directory()) {
                    if (depth < MAX_DEPTH && !SKIPPED.contains(e.name()) && !e.name().startsWith(".")) {
                        stack.push(new Object[] {dir.resolve(e.name()), depth + 1});
                    }
                    continue;
                }
                Markers.spell(e.name()).ifPresent(s -> {
                    spells.add(Markers.SPELLS.indexOf(s));
                    markers.add(e.name());
                });
            }
            String rel = dir.equals(root) ? "." : root.relativize(dir).toString();
            if (dir.equals(root) || !spells.isEmpty()) {
                found.put(rel, new Project(rel, spells.stream().map(Markers.SPELLS::get).toList(), List.copyOf(markers)));
            }
        }
        List<Project> out = new ArrayList<>();
        out.add(found.remove("."));
        out.addAll(found.values());
        return out;
    }

    private static List<Entry> listFiles(Path dir) {
        List<Entry> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                out.add(new Entry(p.getFileName().toString(), Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)));
            }
        } catch (IOException | RuntimeException e) {
            // Unreadable: nothing found there.
        }
        return out;
    }
}
