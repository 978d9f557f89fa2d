package dev.magus.orchestrator.pipeline;

import dev.magus.workspace.config.WorkspaceConfig;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.events.Mode;
import dev.magus.workspace.project.Project;
import dev.magus.workspace.project.Projects;
import dev.magus.workspace.project.Target;
import dev.magus.workspace.spell.SpellCatalog;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The first stage's answer: where the run's workspace is, what it declares, and the mode the
 * run gets.
 *
 * @param workingDir    where the child starts, absolute: the request's working directory, or the
 *                      target's project dir
 * @param workspaceRoot the nearest ancestor holding magus.yaml, else the working directory
 * @param workspaceFile that magus.yaml, when there is one
 * @param config        the workspace's sandbox section ({@link WorkspaceConfig#DEFAULT} without a file)
 * @param floor         the {@code MAGUS_SANDBOX} floor, when the variable is set and not empty
 * @param mode          the effective mode: the stronger of the floor and the request
 * @param nested        whether this magus runs inside another magus run ({@code MAGUS_RUN_ID} set)
 * @param argv          the command to run: the request's, or the target's with the request's appended
 * @param projects      the workspace's registered projects
 * @param spells        the spells the workspace can bind (loaded, each, when the policy is built)
 * @param spellNames    the spells this process gets ({@link dev.magus.workspace.project.SpellChoice})
 * @param project       the project the run belongs to: the target's, else the one holding the working dir
 * @param target        the target run, with whether it {@link Target#writes() writes} (a write-mode
 *                      dispatch, audited for writes into {@link Projects#descendants descendant projects})
 */
public record RunConfig(String runId, RunRequest request, Path workingDir, Path workspaceRoot,
        Optional<Path> workspaceFile, WorkspaceConfig config, Optional<Mode> floor, Mode mode, boolean nested,
        List<String> argv, Projects projects, SpellCatalog spells, List<String> spellNames, Optional<Project> project,
        Optional<Target> target) {
    public RunConfig {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(workingDir, "workingDir");
        Objects.requireNonNull(workspaceRoot, "workspaceRoot");
        Objects.requireNonNull(workspaceFile, "workspaceFile");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(floor, "floor");
        Objects.requireNonNull(mode, "mode");
        argv = List.copyOf(argv);
        Objects.requireNonNull(projects, "projects");
        Objects.requireNonNull(spells, "spells");
        spellNames = List.copyOf(spellNames);
        Objects.requireNonNull(project, "project");
        Objects.requireNonNull(target, "target");
    }
}
