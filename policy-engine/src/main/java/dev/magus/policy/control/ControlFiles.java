package dev.magus.policy.control;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The control files of the specification: files inside a write grant that another tool obeys
 * later, outside any sandbox (git hooks and config, version-manager pins, direnv, agent and
 * editor settings, hook managers). Under any mode but off a write to one is refused
 * (MGS2002), even inside a write grant.
 *
 * <p>This class answers only "is this write target a control file"; deciding that it applies
 * to writes alone (reads are unaffected) and under which mode is the caller's concern.
 *
 * <p>Names are matched at any depth of the workspace, since mise, direnv and the agents read
 * nested copies too. A directory entry ({@code .claude/}) matches the directory itself and
 * everything beneath it; a file entry matches the file and, should it be replaced by a
 * directory, everything beneath it too. {@code .git} itself (the directory, or the
 * {@code .git} file of a linked worktree or submodule) is refused, but only the entries listed
 * beneath it are: {@code .git/objects/}, {@code .git/refs/}, the index and the rest stay
 * writable so that git can commit from inside a build. {@code ./magus} is deliberately not a
 * control file: go-build writes it and a person runs it next.
 *
 * <p>The git directories of the workspace that lie outside the checkout (a linked worktree's
 * own git dir and the common dir) are protected the same way, by their absolute paths.
 *
 * <p>Beyond the specification's list: {@code .git/config.worktree} (git reads it for the main
 * worktree just as for a linked one), {@code commondir} in a git dir given by path (it tells
 * git where the config and hooks live), {@code config.worktree} of the other linked worktrees
 * ({@code .git/worktrees/<name>/}), the hooks, info, config and config.worktree of submodule
 * git dirs ({@code .git/modules/<name>/}), and every config name lefthook reads ({@code lefthook} and
 * {@code lefthook-local}, with and without the leading dot, in yml, yaml, toml, json and
 * jsonc, also under {@code .config/} since names match at any depth) plus its script
 * directories {@code .lefthook/} and {@code .lefthook-local/}.
 *
 * <p>Names are compared ignoring ASCII case (see {@code name}). All paths given must be
 * absolute and already resolved the way the kernel walks them. Immutable and thread-safe.
 */
public final class ControlFiles {

    /** The name entries, matched at any depth of the workspace, in display order. */
    private static final List<String> NAME_ENTRIES;
    /** Names whose entry is a directory (display with a trailing slash). */
    private static final Set<String> DIRECTORY_NAMES = Set.of(".magus", ".mise", ".claude", ".cursor", ".husky", ".lefthook",
            ".lefthook-local");
    private static final Set<String> FILE_NAMES;

    static {
        List<String> lefthook = new ArrayList<>();
        for (String stem : List.of("lefthook", "lefthook-local")) {
            for (String dot : List.of("", ".")) {
                for (String ext : List.of("yml", "yaml", "toml", "json", "jsonc")) {
                    lefthook.add(dot + stem + "." + ext);
                }
            }
        }
        List<String> files = new ArrayList<>(List.of(
                "magus.yaml",
                "mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml", ".tool-versions", ".envrc",
                ".mcp.json",
                ".pre-commit-config.yaml"));
        files.addAll(lefthook);
        FILE_NAMES = Set.copyOf(files);

        List<String> names = new ArrayList<>();
        names.add("magus.yaml");
        // The workspace's YAML spells (.magus/spells/NAME.yaml): a grant the next run obeys.
        names.add(".magus/");
        names.addAll(List.of("mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml", ".mise/", ".tool-versions", ".envrc"));
        names.addAll(List.of(".claude/", ".cursor/", ".mcp.json", ".vscode/tasks.json"));
        names.addAll(List.of(".pre-commit-config.yaml", ".husky/"));
        names.addAll(lefthook);
        names.addAll(List.of(".lefthook/", ".lefthook-local/"));
        NAME_ENTRIES = List.copyOf(names);
    }

    /** The entries beneath {@code .git} of the checkout, matched at any depth. */
    public static final String GIT = ".git";
    public static final String GIT_HOOKS = ".git/hooks/";
    public static final String GIT_CONFIG = ".git/config";
    public static final String GIT_INFO = ".git/info/";
    public static final String GIT_CONFIG_WORKTREE = ".git/config.worktree";

    /** The entries of a git directory given by path (a linked worktree's git dir, the common dir). */
    public static final String GIT_DIR = "<git dir>";
    public static final String GIT_DIR_HOOKS = "<git dir>/hooks/";
    public static final String GIT_DIR_CONFIG = "<git dir>/config";
    public static final String GIT_DIR_INFO = "<git dir>/info/";
    public static final String GIT_DIR_CONFIG_WORKTREE = "<git dir>/config.worktree";
    public static final String GIT_DIR_COMMONDIR = "<git dir>/commondir";

    private static final List<String> ENTRIES;

    static {
        List<String> all = new ArrayList<>(List.of(GIT, GIT_HOOKS, GIT_CONFIG, GIT_INFO, GIT_CONFIG_WORKTREE,
                GIT_DIR, GIT_DIR_HOOKS, GIT_DIR_CONFIG, GIT_DIR_INFO, GIT_DIR_CONFIG_WORKTREE, GIT_DIR_COMMONDIR));
        all.addAll(NAME_ENTRIES);
        ENTRIES = List.copyOf(all);
    }

    private final Path workspaceRoot;
    private final List<Path> gitDirs;

    private ControlFiles(Path workspaceRoot, List<Path> gitDirs) {
        this.workspaceRoot = workspaceRoot;
        this.gitDirs = gitDirs;
    }

    /**
     * @param workspaceRoot the resolved workspace root
     * @param gitDirs       the resolved git directories of the workspace: {@code <root>/.git}
     *                      for an ordinary checkout; for a linked worktree its own git dir
     *                      ({@code .../.git/worktrees/<name>}) and the common dir. Those inside
     *                      the workspace are covered by the name entries anyway.
     */
    public static ControlFiles of(Path workspaceRoot, List<Path> gitDirs) {
        requireAbsolute(workspaceRoot);
        List<Path> dirs = new ArrayList<>(gitDirs.size());
        for (Path g : gitDirs) {
            requireAbsolute(g);
            dirs.add(g.normalize());
        }
        return new ControlFiles(workspaceRoot.normalize(), List.copyOf(dirs));
    }

    /** Every entry, as printed by {@code magus explain} / {@code magus policy}. */
    public static List<String> entries() {
        return ENTRIES;
    }

    public Path workspaceRoot() {
        return workspaceRoot;
    }

    public List<Path> gitDirs() {
        return gitDirs;
    }

    /** The entry of {@link #entries()} that {@code resolved}, a write target, falls under; empty if none. */
    public Optional<String> match(Path resolved) {
        requireAbsolute(resolved);
        if (resolved.startsWith(workspaceRoot)) {
            Optional<String> named = matchNames(resolved, workspaceRoot.getNameCount());
            if (named.isPresent()) {
                return named;
            }
        }
        for (Path g : gitDirs) {
            if (resolved.startsWith(g)) {
                Optional<String> inGitDir = matchGitDir(resolved, g.getNameCount());
                if (inGitDir.isPresent()) {
                    return inGitDir;
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<String> matchNames(Path p, int from) {
        int k = p.getNameCount();
        for (int i = from; i < k; i++) {
            String name = name(p, i);
            boolean last = i == k - 1;
            if (name.equals(".git")) {
                // Nothing beneath .git but git's own entries is a control file: a branch named
                // magus.yaml must not make its reflog unwritable.
                return matchInsideDotGit(p, i);
            }
            if (DIRECTORY_NAMES.contains(name)) {
                return Optional.of(name + "/");
            }
            if (FILE_NAMES.contains(name)) {
                return Optional.of(name);
            }
            if (name.equals(".vscode") && !last && name(p, i + 1).equals("tasks.json")) {
                return Optional.of(".vscode/tasks.json");
            }
        }
        return Optional.empty();
    }

    /** {@code p} has {@code .git} at index {@code g}. */
    private static Optional<String> matchInsideDotGit(Path p, int g) {
        int k = p.getNameCount();
        if (g == k - 1) {
            return Optional.of(GIT);
        }
        switch (name(p, g + 1)) {
            case "hooks":
                return Optional.of(GIT_HOOKS);
            case "config":
                return Optional.of(GIT_CONFIG);
            case "info":
                return Optional.of(GIT_INFO);
            case "config.worktree":
                return Optional.of(GIT_CONFIG_WORKTREE);
            case "worktrees":
                // .git/worktrees/<name>/ is the git dir of another linked worktree of this checkout.
                if (k > g + 3 && name(p, g + 3).equals("config.worktree")) {
                    return Optional.of(GIT_DIR_CONFIG_WORKTREE);
                }
                return Optional.empty();
            case "modules":
                return matchSubmoduleGitDir(p, g + 3);
            default:
                return Optional.empty();
        }
    }

    /**
     * Beneath {@code .git/modules/} live the git dirs of submodules, whose names may span
     * several components; their hooks run when someone commits inside the submodule. The scan
     * stops at git's data directories, so refs and objects stay writable.
     */
    private static Optional<String> matchSubmoduleGitDir(Path p, int from) {
        int k = p.getNameCount();
        for (int j = from; j < k; j++) {
            boolean last = j == k - 1;
            switch (name(p, j)) {
                case "objects", "refs", "logs", "lfs":
                    return Optional.empty();
                case "hooks":
                    return Optional.of(GIT_DIR_HOOKS);
                case "info":
                    return Optional.of(GIT_DIR_INFO);
                case "config":
                    if (last) {
                        return Optional.of(GIT_DIR_CONFIG);
                    }
                    break;
                case "config.worktree":
                    if (last) {
                        return Optional.of(GIT_DIR_CONFIG_WORKTREE);
                    }
                    break;
                default:
                    break;
            }
        }
        return Optional.empty();
    }

    /**
     * Component {@code i}, lower-cased: on a case-insensitive filesystem (macOS by default)
     * {@code .GIT/HOOKS} is the real hooks directory, so the comparison ignores ASCII case
     * everywhere; on Linux that refuses a few harmless lookalikes, never misses a real one.
     */
    private static String name(Path p, int i) {
        return p.getName(i).toString().toLowerCase(Locale.ROOT);
    }

    private static Optional<String> matchGitDir(Path p, int from) {
        if (p.getNameCount() == from) {
            return Optional.of(GIT_DIR);
        }
        switch (name(p, from)) {
            case "hooks":
                return Optional.of(GIT_DIR_HOOKS);
            case "config":
                return Optional.of(GIT_DIR_CONFIG);
            case "info":
                return Optional.of(GIT_DIR_INFO);
            case "config.worktree":
                return Optional.of(GIT_DIR_CONFIG_WORKTREE);
            case "commondir":
                return Optional.of(GIT_DIR_COMMONDIR);
            default:
                return Optional.empty();
        }
    }

    private static void requireAbsolute(Path p) {
        if (!p.isAbsolute()) {
            throw new IllegalArgumentException("control files take absolute, resolved paths: " + p);
        }
    }

    @Override
    public String toString() {
        return "ControlFiles[" + workspaceRoot + ", git dirs " + gitDirs + "]";
    }
}
