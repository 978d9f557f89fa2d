package dev.magus.orchestrator.pipeline;

import dev.magus.env.MagusVariables;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Echo;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import dev.magus.events.IoFailures;
import dev.magus.workspace.config.ConfigCache;
import dev.magus.workspace.config.WorkspaceConfig;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.policy.mode.Mode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
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
     *         or the file, a malformed or unreadable magus.yaml, a NUL in the command, or (when
     *         the sandbox is on) a missing or relative {@code HOME}; MGS2010 for a flag weaker
     *         than the floor
     */
    public static RunConfig resolve(String runId, RunRequest request, Map<String, String> hostEnv) {
        checkArgv(request.argv());
        Path cwd = request.workingDir().toAbsolutePath().normalize();
        Optional<Path> file = findWorkspaceFile(cwd);
        Path root = file.map(Path::getParent).orElse(cwd);
        WorkspaceConfig config = file.map(ConfigCache::read).orElse(WorkspaceConfig.DEFAULT);
        Optional<Mode> floor = Optional.ofNullable(hostEnv.get(MagusVariables.SANDBOX))
                .filter(v -> !v.isEmpty())
                .map(v -> Mode.parse(v, MagusVariables.SANDBOX));
        Mode mode = Mode.effective(floor, request.sandbox(), config.mode());
        if (mode != Mode.OFF) {
            checkHome(hostEnv.get("HOME"));
        }
        boolean nested = Optional.ofNullable(hostEnv.get(RUN_ID)).filter(v -> !v.isEmpty()).isPresent();
        return new RunConfig(runId, request, cwd, root, file, config, floor, mode, nested);
    }

    /**
     * The nearest directory entry named {@code magus.yaml} at or above {@code dir}, whatever
     * its kind: the name is looked at, not followed. A dangling link, a directory or a fifo of
     * that name is found here and refused when read; skipping it would run the workspace as if
     * it declared nothing, with the sandbox off.
     *
     * @throws SandboxException MGS2004 when whether the entry exists cannot be told (a directory
     *         on the way that cannot be searched)
     */
    public static Optional<Path> findWorkspaceFile(Path dir) {
        for (Path d = dir; d != null; d = d.getParent()) {
            Path candidate = d.resolve(WORKSPACE_FILE);
            try {
                Files.readAttributes(candidate, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                return Optional.of(candidate);
            } catch (NoSuchFileException | NotDirectoryException e) {
                // not here: look further up
            } catch (IOException e) {
                throw new SandboxException(Diagnostic.of(Code.MGS2004,
                        "cannot tell whether " + candidate + " exists: " + IoFailures.reason(e)
                                + "; magus does not guess that a workspace declares nothing",
                        "", Operation.NONE, Layer.POLICY, WORKSPACE_FILE).withDetail("file", candidate.toString()));
            }
        }
        return Optional.empty();
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
