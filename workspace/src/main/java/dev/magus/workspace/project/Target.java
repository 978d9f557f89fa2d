package dev.magus.workspace.project;

import dev.magus.policy.decl.DeclLayer;
import dev.magus.policy.decl.SandboxDecl;
import java.util.List;
import java.util.Objects;

/**
 * A named command of a project, with its own sandbox layer.
 *
 * @param project the project's dir, relative to the workspace root ({@code .} for the root)
 * @param name    the target's name within its project
 * @param run     the command and its arguments, never empty
 * @param writes  a write-mode dispatch: the run is audited for writes into descendant projects (MGS3001)
 * @param sandbox its declaration, at layer {@code target:REF}
 * @param source  where it was declared ({@code magus.yaml:14:7})
 */
public record Target(String project, String name, List<String> run, boolean writes, SandboxDecl sandbox, String source) {
    public Target {
        Objects.requireNonNull(project, "project");
        Objects.requireNonNull(name, "name");
        run = List.copyOf(run);
        if (run.isEmpty()) {
            throw new IllegalArgumentException("a target runs a command");
        }
        Objects.requireNonNull(sandbox, "sandbox");
        Objects.requireNonNull(source, "source");
        if (!sandbox.layer().equals(layer(project, name))) {
            throw new IllegalArgumentException("target " + ref(project, name) + " declares at " + sandbox.layer().label());
        }
    }

    /** {@code api/test}, or {@code test} for a target of the root project: how it is named on the command line. */
    public String ref() {
        return ref(project, name);
    }

    /** Its layer: {@code target:api/test}. */
    public static DeclLayer layer(String project, String name) {
        return DeclLayer.target(ref(project, name));
    }

    static String ref(String project, String name) {
        return project.equals(".") ? name : project + "/" + name;
    }
}
