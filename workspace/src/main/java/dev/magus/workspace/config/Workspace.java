package dev.magus.workspace.config;

import dev.magus.env.platform.Platform;
import dev.magus.events.Code;
import dev.magus.events.DetailKey;
import dev.magus.events.Diagnostic;
import dev.magus.events.IoFailures;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import dev.magus.workspace.FileStamp;
import dev.magus.workspace.project.ProjectDirs;
import dev.magus.workspace.project.Projects;
import dev.magus.workspace.project.ProjectsReader;
import dev.magus.workspace.spell.SpellCatalog;
import dev.magus.workspace.spell.SpellHost;
import dev.magus.workspace.spell.SpellParses;
import dev.magus.workspace.yaml.YamlFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * A workspace as a run sees it: the directory of the nearest {@code magus.yaml} at or above the
 * working directory (the working directory itself when there is none), its {@code sandbox}
 * section, its projects and the spells it can bind. Everything is read and checked when it is
 * opened; the file is read and parsed once for all its sections.
 *
 * @param root     the workspace's root
 * @param file     its {@code magus.yaml}, absent for a directory without one
 * @param config   the {@code sandbox} section ({@link WorkspaceConfig#DEFAULT} without a file)
 * @param projects the {@code projects} section
 * @param spells   the built-in spells, the workspace's YAML spells and the providers'
 */
public record Workspace(Path root, Optional<Path> file, WorkspaceConfig config, Projects projects, SpellCatalog spells) {
    /** The name of a workspace's file. */
    public static final String FILE = "magus.yaml";

    public Workspace {
        Objects.requireNonNull(root, "root");
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(projects, "projects");
        Objects.requireNonNull(spells, "spells");
    }

    /**
     * The workspace holding {@code cwd}, its file and spells taken from {@code caches} while they
     * are unchanged, and kept there.
     *
     * @param cwd  an absolute, normalized directory
     * @param env  the host's environment, which the spells' defaults read
     * @param home the user's home, which the spells' defaults are under
     * @throws SandboxException MGS2004 for a magus.yaml that cannot be told to exist, read or
     *         honored (its projects and targets included), and a user spell shadowing a built-in
     */
    public static Workspace open(Path cwd, Map<String, String> env, Path home, WorkspaceCaches caches) {
        return open(cwd, env, home, caches.spells, found -> caches.config.parse(found.file(), found.stamp()));
    }

    /**
     * {@link #open(Path, Map, Path, WorkspaceCaches)} with the file read and parsed by {@code load}, once for all
     * its sections.
     */
    public static Workspace openWith(Path cwd, Map<String, String> env, Path home, Function<Path, ParsedConfig> load) {
        return open(cwd, env, home, new SpellParses(), found -> load.apply(found.file()));
    }

    private static Workspace open(Path cwd, Map<String, String> env, Path home, SpellParses parses,
            Function<Found, ParsedConfig> load) {
        Optional<Found> found = find(cwd);
        Optional<Path> file = found.map(Found::file);
        Path root = file.map(Path::getParent).orElse(cwd);
        ParsedConfig parsed = found.map(load).orElse(ParsedConfig.NONE);
        SpellCatalog spells = SpellCatalog.load(root, new SpellHost(env, home, Platform.current() == Platform.MACOS),
                ConfigText::read, Workspace.class.getClassLoader(), parses);
        Projects projects = Projects.NONE;
        if (file.isPresent()) {
            projects = ProjectsReader.read(new YamlFile(FILE, ""), parsed.document(), spells::knows);
            ProjectDirs.check(projects, root);
        }
        return new Workspace(root, file, parsed.config(), projects, spells);
    }

    /**
     * The {@code sandbox} section of the workspace holding {@code dir}, from {@code caches} while
     * the file is unchanged; {@link WorkspaceConfig#DEFAULT} without a file. Neither projects nor
     * spells are read.
     *
     * @throws SandboxException as {@link #open}, for the file and its section
     */
    public static WorkspaceConfig configAt(Path dir, WorkspaceCaches caches) {
        return find(dir).map(f -> caches.config.parse(f.file(), f.stamp()).config()).orElse(WorkspaceConfig.DEFAULT);
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
    public static Optional<Path> findFile(Path dir) {
        return find(dir).map(Found::file);
    }

    /**
     * The workspace file {@link #findFile} finds, and its stamp from the very {@code lstat} that
     * found it ({@link FileStamp#ofAttributes}), for {@link ConfigCache}.
     */
    record Found(Path file, FileStamp stamp) {
    }

    private static Optional<Found> find(Path dir) {
        for (Path d = dir; d != null; d = d.getParent()) {
            Path candidate = d.resolve(FILE);
            try {
                Map<String, Object> lstat;
                try {
                    lstat = Files.readAttributes(candidate, FileStamp.ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
                } catch (UnsupportedOperationException e) {
                    // No unix view here: found as before, stamped on its own.
                    Files.readAttributes(candidate, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                    return Optional.of(new Found(candidate, FileStamp.of(candidate)));
                }
                return Optional.of(new Found(candidate, FileStamp.ofAttributes(candidate, lstat)));
            } catch (NoSuchFileException | NotDirectoryException e) {
                // not here: look further up
            } catch (IOException e) {
                throw new SandboxException(Diagnostic.of(Code.MGS2004,
                        "cannot tell whether " + candidate + " exists: " + IoFailures.reason(e)
                                + "; magus does not guess that a workspace declares nothing",
                        "", Operation.NONE, Layer.POLICY, FILE).withDetail(DetailKey.FILE, candidate.toString()));
            }
        }
        return Optional.empty();
    }
}
