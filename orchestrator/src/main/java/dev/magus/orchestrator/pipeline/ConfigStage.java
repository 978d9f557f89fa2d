package dev.magus.orchestrator.pipeline;

import dev.magus.env.MagusVariables;
import dev.magus.orchestrator.config.WorkspaceConfig;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.policy.mode.Mode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/** Stage 1: workspace root, magus.yaml, the {@code MAGUS_SANDBOX} floor and {@code --sandbox}. */
public final class ConfigStage {
    public static final String WORKSPACE_FILE = "magus.yaml";
    /** Set in every child: a magus that sees it knows it is nested. */
    public static final String RUN_ID = "MAGUS_RUN_ID";

    private ConfigStage() {
    }

    /**
     * @throws dev.magus.events.SandboxException MGS2004 for a bad mode in the flag, the variable
     *         or the file, or a malformed magus.yaml; MGS2010 for a flag weaker than the floor
     */
    public static RunConfig resolve(String runId, RunRequest request, Map<String, String> hostEnv) {
        Path cwd = request.workingDir().toAbsolutePath().normalize();
        Optional<Path> file = findWorkspaceFile(cwd);
        Path root = file.map(Path::getParent).orElse(cwd);
        WorkspaceConfig config = file.map(WorkspaceConfig::read).orElse(WorkspaceConfig.DEFAULT);
        Optional<Mode> floor = Optional.ofNullable(hostEnv.get(MagusVariables.SANDBOX))
                .filter(v -> !v.isEmpty())
                .map(v -> Mode.parse(v, MagusVariables.SANDBOX));
        Mode mode = Mode.effective(floor, request.sandbox(), config.mode());
        boolean nested = Optional.ofNullable(hostEnv.get(RUN_ID)).filter(v -> !v.isEmpty()).isPresent();
        return new RunConfig(runId, request, cwd, root, file, config, floor, mode, nested);
    }

    /** The nearest {@code magus.yaml} at or above {@code dir}. */
    public static Optional<Path> findWorkspaceFile(Path dir) {
        for (Path d = dir; d != null; d = d.getParent()) {
            Path candidate = d.resolve(WORKSPACE_FILE);
            if (Files.isRegularFile(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}
