package dev.magus.orchestrator.pipeline;

import dev.magus.env.platform.Platform;
import dev.magus.events.DetailKey;
import dev.magus.events.MagusEnv;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Echo;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import dev.magus.events.IoFailures;
import dev.magus.workspace.FileStamp;
import dev.magus.workspace.config.ConfigCache;
import dev.magus.workspace.config.ConfigText;
import dev.magus.workspace.config.ParsedConfig;
import dev.magus.workspace.config.WorkspaceConfig;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.policy.HostFacts;
import dev.magus.events.Mode;
import dev.magus.workspace.project.Project;
import dev.magus.workspace.project.ProjectDirs;
import dev.magus.workspace.project.Projects;
import dev.magus.workspace.project.ProjectsReader;
import dev.magus.workspace.project.SpellChoice;
import dev.magus.workspace.project.Target;
import dev.magus.workspace.spell.SpellCatalog;
import dev.magus.workspace.spell.SpellHost;
import dev.magus.workspace.yaml.YamlFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/** Stage 1: workspace root, magus.yaml, the {@code MAGUS_SANDBOX} floor and {@code --sandbox}. */
public final class ConfigStage {
    public static final String WORKSPACE_FILE = "magus.yaml";

    private ConfigStage() {
    }

    /** {@link #resolve(String, RunRequest, Map, Path)} with home from {@code HOME}, else {@code user.home}. */
    public static RunConfig resolve(String runId, RunRequest request, Map<String, String> hostEnv) {
        String home = Optional.ofNullable(hostEnv.get("HOME")).filter(h -> h.startsWith("/") && h.indexOf('\0') < 0)
                .orElse(System.getProperty("user.home"));
        return resolve(runId, request, hostEnv, Path.of(home).toAbsolutePath());
    }

    /**
     * @param home the user's home, which the spells' defaults are under
     * @throws dev.magus.events.SandboxException MGS2004 for a bad mode in the flag, the variable
     *         or the file, a malformed or unreadable magus.yaml (its projects and targets
     *         included), a user spell shadowing a built-in, an unknown {@code --op} spell or
     *         {@code --target}, a NUL in the command, or (when the sandbox is on) a missing or
     *         relative {@code HOME}; MGS2010 for a flag weaker than the floor
     */
    public static RunConfig resolve(String runId, RunRequest request, Map<String, String> hostEnv, Path home) {
        return resolveFound(runId, request, hostEnv, home, found -> ConfigCache.parse(found.file(), found.stamp()));
    }

    /**
     * @param load reads and parses a magus.yaml, once for all its sections ({@link ConfigCache#parse}
     *             outside tests)
     */
    public static RunConfig resolve(String runId, RunRequest request, Map<String, String> hostEnv, Path home,
            Function<Path, ParsedConfig> load) {
        return resolveFound(runId, request, hostEnv, home, found -> load.apply(found.file()));
    }

    private static RunConfig resolveFound(String runId, RunRequest request, Map<String, String> hostEnv, Path home,
            Function<Found, ParsedConfig> load) {
        checkArgv(request.argv());
        Path cwd = request.workingDir().toAbsolutePath().normalize();
        Optional<Found> found = findWorkspace(cwd);
        Optional<Path> file = found.map(Found::file);
        Path root = file.map(Path::getParent).orElse(cwd);
        // Read and parsed once: the sandbox section here, the projects below from the same document.
        ParsedConfig parsed = found.map(load).orElse(ParsedConfig.NONE);
        WorkspaceConfig config = parsed.config();
        Optional<Mode> floor = Optional.ofNullable(hostEnv.get(MagusEnv.SANDBOX))
                .filter(v -> !v.isEmpty())
                .map(v -> Mode.parse(v, MagusEnv.SANDBOX));
        Mode mode = Mode.effective(floor, request.sandbox(), config.mode());
        if (mode != Mode.OFF) {
            checkHome(hostEnv.get("HOME"));
        }
        boolean nested = MagusEnv.nested(hostEnv);

        boolean macos = Platform.current() == Platform.MACOS;
        SpellCatalog spells = SpellCatalog.load(root, new SpellHost(hostEnv, home, macos), ConfigText::read,
                ConfigStage.class.getClassLoader());
        Projects projects = Projects.NONE;
        if (file.isPresent()) {
            projects = ProjectsReader.read(new YamlFile(WORKSPACE_FILE, ""), parsed.document(), spells::knows);
            ProjectDirs.check(projects, root);
        }
        Projects registered = projects;
        Optional<Target> target = request.target().map(ref -> registered.target(ref, "--target"));
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
        return new RunConfig(runId, request, workingDir, root, file, config, floor, mode, nested, argv, projects, spells,
                spellNames, project, target);
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
        return findWorkspace(dir).map(Found::file);
    }

    /**
     * The workspace file {@link #findWorkspaceFile} finds, and its stamp from the very
     * {@code lstat} that found it ({@link FileStamp#ofAttributes}), for {@link ConfigCache}.
     */
    public record Found(Path file, FileStamp stamp) {
        @Override
        public String toString() {
            return "Found[" + file + "]";
        }
    }

    /**
     * {@link #findWorkspaceFile}, with the stamp of what it found.
     *
     * @throws SandboxException as {@link #findWorkspaceFile}
     */
    public static Optional<Found> findWorkspace(Path dir) {
        for (Path d = dir; d != null; d = d.getParent()) {
            Path candidate = d.resolve(WORKSPACE_FILE);
            try {
                Map<String, Object> lstat;
                try {
                    lstat = Files.readAttributes(candidate, FileStamp.ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
                } catch (UnsupportedOperationException e) {
                    // No unix view here: found as before, stamped on its own.
                    Files.readAttributes(candidate, java.nio.file.attribute.BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                    return Optional.of(new Found(candidate, FileStamp.of(candidate)));
                }
                return Optional.of(new Found(candidate, FileStamp.ofAttributes(candidate, lstat)));
            } catch (NoSuchFileException | NotDirectoryException e) {
                // not here: look further up
            } catch (IOException e) {
                throw new SandboxException(Diagnostic.of(Code.MGS2004,
                        "cannot tell whether " + candidate + " exists: " + IoFailures.reason(e)
                                + "; magus does not guess that a workspace declares nothing",
                        "", Operation.NONE, Layer.POLICY, WORKSPACE_FILE).withDetail(DetailKey.FILE, candidate.toString()));
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
