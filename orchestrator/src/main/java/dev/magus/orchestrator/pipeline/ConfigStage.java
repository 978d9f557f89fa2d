package dev.magus.orchestrator.pipeline;

import dev.magus.events.MagusEnv;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Echo;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import dev.magus.workspace.config.Workspace;
import dev.magus.workspace.config.WorkspaceCaches;
import dev.magus.workspace.config.WorkspaceConfig;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.events.Mode;
import dev.magus.workspace.project.Project;
import dev.magus.workspace.project.Projects;
import dev.magus.workspace.project.SpellChoice;
import dev.magus.workspace.project.Target;
import dev.magus.workspace.spell.SpellCatalog;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Stage 1: the workspace ({@link Workspace#open}) and the run's part: its mode (the
 * {@code MAGUS_SANDBOX} floor, {@code --sandbox} and the file), its target, spell and command.
 */
public final class ConfigStage {
    private ConfigStage() {
    }

    /**
     * @param home the user's home, which the spells' defaults are under
     * @throws dev.magus.events.SandboxException MGS2004 for a bad mode in the flag, the variable
     *         or the file, a workspace that cannot be opened ({@link Workspace#open}), an unknown
     *         {@code --op} spell or {@code --target}, a NUL in the command, or (when the sandbox
     *         is on) a missing or relative {@code HOME}; MGS2010 for a flag weaker than the floor
     */
    public static RunConfig resolve(String runId, RunRequest request, Map<String, String> hostEnv, Path home) {
        return resolve(runId, request, hostEnv, home, new WorkspaceCaches());
    }

    /** {@link #resolve(String, RunRequest, Map, Path)}, the workspace's files from {@code caches} while unchanged. */
    public static RunConfig resolve(String runId, RunRequest request, Map<String, String> hostEnv, Path home,
            WorkspaceCaches caches) {
        checkArgv(request.argv());
        return resolve(runId, request, hostEnv, Workspace.open(cwd(request), hostEnv, home, caches));
    }

    /** The run's part of the config, in {@code workspace} as opened for the request's working directory. */
    public static RunConfig resolve(String runId, RunRequest request, Map<String, String> hostEnv, Workspace workspace) {
        checkArgv(request.argv());
        Path cwd = cwd(request);
        Path root = workspace.root();
        WorkspaceConfig config = workspace.config();
        Optional<Mode> floor = Optional.ofNullable(hostEnv.get(MagusEnv.SANDBOX))
                .filter(v -> !v.isEmpty())
                .map(v -> Mode.parse(v, MagusEnv.SANDBOX));
        Mode mode = Mode.effective(floor, request.sandbox(), config.mode());
        if (mode != Mode.OFF) {
            checkHome(hostEnv.get("HOME"));
        }
        boolean nested = MagusEnv.nested(hostEnv);

        SpellCatalog spells = workspace.spells();
        Projects projects = workspace.projects();
        Optional<Target> target = request.target().map(ref -> projects.target(ref, "--target"));
        request.op().filter(op -> !spells.knows(op)).ifPresent(op -> {
            throw new SandboxException(Diagnostic.of(Code.MGS2004, "--op names no spell: " + Echo.quoted(op) + " (known: "
                    + String.join(", ", spells.names()) + ")", op, Operation.NONE, Layer.POLICY, "--op"));
        });
        Path workingDir = cwd;
        List<String> argv = request.argv();
        Optional<Project> project;
        if (target.isPresent()) {
            project = projects.at(target.get().project());
            workingDir = project.orElseThrow().path(root);
            List<String> all = new ArrayList<>(target.get().run());
            all.addAll(request.argv());
            argv = all;
        } else {
            project = projects.holding(root, cwd);
        }
        List<String> spellNames = SpellChoice.spells(projects, request.op(), project);
        return new RunConfig(runId, request, workingDir, root, workspace.file(), config, floor, mode, nested, argv, projects,
                spells, spellNames, project, target);
    }

    private static Path cwd(RunRequest request) {
        return request.workingDir().toAbsolutePath().normalize();
    }

    /**
     * A sandbox keeps the credentials under home out of every grant; with {@code HOME} unset or
     * relative it cannot tell where they are, and the tools it runs would each guess differently.
     */
    static void checkHome(String home) {
        String why;
        if (home == null || home.isEmpty()) {
            why = "HOME is not set";
        } else if (home.indexOf('\0') >= 0) {
            why = "HOME contains a NUL character";
        } else if (!home.startsWith("/")) {
            why = "HOME is " + Echo.quoted(home) + ", not an absolute path";
        } else {
            return;
        }
        throw new SandboxException(Diagnostic.of(Code.MGS2004,
                why + ": the sandbox keeps everything under your home directory out of a run and must know where"
                        + " it is; set HOME to your home directory (an absolute path)",
                "HOME", Operation.NONE, Layer.POLICY, "HOME"));
    }

    /** A NUL cannot reach execve: the argument would be cut short silently, so it is refused. */
    static void checkArgv(List<String> argv) {
        for (int i = 0; i < argv.size(); i++) {
            if (argv.get(i).indexOf('\0') >= 0) {
                String which = i == 0 ? "the command" : "argument " + i + " of the command";
                throw new SandboxException(Diagnostic.of(Code.MGS2004,
                        which + " " + Echo.quoted(argv.get(i)) + " contains a NUL character, which cannot be passed to a"
                                + " program",
                        "", Operation.NONE, Layer.POLICY, i == 0 ? "CMD" : "CMD argument " + i));
            }
        }
    }
}
