package dev.magus.workspace.project;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Echo;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** A workspace's registered projects, in declared order. A nested project is a descendant of its parent. */
public record Projects(List<Project> all) {
    public static final Projects NONE = new Projects(List.of());

    public Projects {
        all = List.copyOf(all);
    }

    /** The project registered at {@code dir} (workspace-relative, normalized). */
    public Optional<Project> at(String dir) {
        return all.stream().filter(p -> p.dir().equals(dir)).findFirst();
    }

    /** The innermost project holding {@code relative}, a workspace-relative dir ({@code .} for the root). */
    public Optional<Project> holding(String relative) {
        return all.stream().filter(p -> p.holds(relative)).max(Comparator.comparingInt(p -> p.dir().equals(".") ? 0 : p.dir().length()));
    }

    /** The innermost project holding {@code dir}, an absolute directory inside {@code workspaceRoot}. */
    public Optional<Project> holding(Path workspaceRoot, Path dir) {
        Path rel = workspaceRoot.relativize(dir.toAbsolutePath().normalize());
        if (rel.startsWith("..")) {
            return Optional.empty();
        }
        String text = rel.toString().isEmpty() ? "." : rel.toString().replace('\\', '/');
        return holding(text);
    }

    /** The registered projects strictly below {@code project}: the boundaries a write-mode dispatch on it must stop at. */
    public List<Project> descendants(Project project) {
        return all.stream().filter(project::isAncestorOf).toList();
    }

    /** Their dirs, absolute under {@code workspaceRoot}. */
    public List<Path> descendantDirs(Project project, Path workspaceRoot) {
        return descendants(project).stream().map(p -> p.path(workspaceRoot)).toList();
    }

    /** Every spell a project binds, each once, in declared order: what a target's own processes get. */
    public List<String> boundSpells() {
        Set<String> out = new LinkedHashSet<>();
        all.forEach(p -> out.addAll(p.spells()));
        return List.copyOf(out);
    }

    /**
     * The target {@code ref} names: {@code project/target}, or a target name unique in the workspace.
     *
     * @param source what named it, for the diagnostic ({@code --target}, {@code TARGET})
     * @throws SandboxException MGS2004 when no target has that name, or several do
     */
    public Target target(String ref, String source) {
        int slash = ref.lastIndexOf('/');
        if (slash > 0) {
            String dir = ref.substring(0, slash);
            String name = ref.substring(slash + 1);
            Optional<Target> t = at(dir).flatMap(p -> p.target(name));
            if (t.isPresent()) {
                return t.get();
            }
        }
        List<Target> named = all.stream().flatMap(p -> p.targets().stream()).filter(t -> t.name().equals(ref)).toList();
        if (named.size() == 1) {
            return named.get(0);
        }
        List<String> known = all.stream().flatMap(p -> p.targets().stream()).map(Target::ref).toList();
        String why = named.isEmpty()
                ? "no target is named " + Echo.quoted(ref) + (known.isEmpty() ? "; magus.yaml declares no targets"
                        : " (declared: " + String.join(", ", known) + ")")
                : "target name " + Echo.quoted(ref) + " is declared by several projects; name one of "
                        + String.join(", ", named.stream().map(Target::ref).toList());
        throw new SandboxException(Diagnostic.of(Code.MGS2004, why, ref, Operation.NONE, Layer.POLICY, source));
    }
}
