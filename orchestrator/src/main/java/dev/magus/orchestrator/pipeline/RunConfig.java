package dev.magus.orchestrator.pipeline;

import dev.magus.workspace.config.WorkspaceConfig;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.policy.mode.Mode;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * The first stage's answer: where the run's workspace is, what it declares, and the mode the
 * run gets.
 *
 * @param workingDir    the request's working directory, absolute
 * @param workspaceRoot the nearest ancestor holding magus.yaml, else the working directory
 * @param workspaceFile that magus.yaml, when there is one
 * @param config        the workspace's sandbox section ({@link WorkspaceConfig#DEFAULT} without a file)
 * @param floor         the {@code MAGUS_SANDBOX} floor, when the variable is set and not empty
 * @param mode          the effective mode: the stronger of the floor and the request
 * @param nested        whether this magus runs inside another magus run ({@code MAGUS_RUN_ID} set)
 */
public record RunConfig(String runId, RunRequest request, Path workingDir, Path workspaceRoot,
        Optional<Path> workspaceFile, WorkspaceConfig config, Optional<Mode> floor, Mode mode, boolean nested) {
    public RunConfig {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(workingDir, "workingDir");
        Objects.requireNonNull(workspaceRoot, "workspaceRoot");
        Objects.requireNonNull(workspaceFile, "workspaceFile");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(floor, "floor");
        Objects.requireNonNull(mode, "mode");
    }
}
