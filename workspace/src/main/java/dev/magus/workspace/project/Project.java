package dev.magus.workspace.project;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A registered project.
 *
 * @param dir     relative to the workspace root, normalized, {@code /}-separated; {@code .} is the root
 * @param spells  the spells it binds, in declared order
 * @param targets its targets, in declared order
 * @param source  where it was declared ({@code magus.yaml:5:5})
 */
public record Project(String dir, List<String> spells, List<Target> targets, String source) {
    public Project {
        Objects.requireNonNull(dir, "dir");
        spells = List.copyOf(spells);
        targets = List.copyOf(targets);
        Objects.requireNonNull(source, "source");
    }

    /** Its directory under {@code workspaceRoot}. */
    public Path path(Path workspaceRoot) {
        return dir.equals(".") ? workspaceRoot : workspaceRoot.resolve(dir);
    }

    /** Whether {@code relative} (a workspace-relative dir, as {@link #dir}) is this project's dir or below it. */
    public boolean holds(String relative) {
        return dir.equals(".") || relative.equals(dir) || relative.startsWith(dir + "/");
    }

    /** Whether {@code other} is registered strictly below this project. */
    public boolean isAncestorOf(Project other) {
        return !other.dir.equals(dir) && holds(other.dir);
    }

    public Optional<Target> target(String name) {
        return targets.stream().filter(t -> t.name().equals(name)).findFirst();
    }
}
