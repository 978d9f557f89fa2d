package dev.magus.policy.control;

import dev.magus.policy.git.GitIndirections;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The control files: files inside a write grant that another tool obeys later, outside any
 * sandbox (git hooks and config, version-manager pins, direnv, agent and editor settings, hook
 * managers). Under any mode but off a write to one is MGS2002, even inside a write grant; this
 * class only answers whether a write target is one.
 *
 * <p>Names match at any depth (mise, direnv and the agents read nested copies). A directory
 * entry ({@code .claude/}) matches itself and everything beneath it; a file entry matches the
 * file and, replaced by a directory, everything beneath it. {@code .git} itself (the directory,
 * or a linked worktree's or submodule's {@code .git} file) is refused, but beneath it only the
 * listed entries are: objects, refs and the index stay writable so git can commit from a build.
 * {@code ./magus} is not one: go-build writes it and a person runs it next. The workspace's git
 * dirs outside the checkout (a linked worktree's own, the common dir) are protected by their
 * absolute paths.
 *
 * <p>Beyond the specification's list: every worktree's {@code config.worktree}, {@code commondir}
 * in a git dir given by path (it tells git where the config and hooks live), the hooks, info,
 * config and config.worktree of submodule git dirs, and every config name and script directory
 * lefthook reads.
 *
 * <p>A git dir of any name inside the workspace (a bare {@code remote.git/} above all) is audited
 * like {@code .git}: a remote URL can point at it, and the next unconfined push or fetch runs its
 * hooks and obeys its config. Its path cannot tell it, so a {@link GitDirProbe} is asked
 * ({@link #GIT_DIR_MARKERS}), only about a directory of the workspace, or beneath a git dir given
 * by path, whose next component on the path is one git obeys in a git dir: an ordinary write
 * costs no look-up. Beneath such a directory its entries are control files as beneath
 * {@code .git}; the directory itself is not (a build may make and remove a remote as it likes).
 *
 * <p>Names compare ignoring ASCII case. Paths must be absolute and resolved as the kernel walks
 * them. Immutable and thread-safe (as far as its probe is).
 */
public final class ControlFiles {

    /** The name entries, matched at any depth of the workspace, in display order. */
    private static final List<String> NAME_ENTRIES;
    /** Names whose entry is a directory (display with a trailing slash). */
    private static final Set<String> DIRECTORY_NAMES = Set.of(".magus", ".mise", ".claude", ".cursor", ".husky", ".lefthook",
            ".lefthook-local", ".gemini", ".codex", ".devcontainer");
    /**
     * Entries of two components: a directory name, then what beneath it is obeyed (a trailing
     * slash for a directory whose whole subtree is). Each with the key that makes a tool run code.
     */
    private static final java.util.Map<String, List<String>> PAIRS = java.util.Map.of(
            // tasks run on folder open; settings name interpreters, terminals, formatters; launch runs programs
            ".vscode", List.of("tasks.json", "settings.json", "launch.json"),
            // mise's own config dir, conf.d included: tasks, hooks and env it evaluates
            ".config", List.of("mise/", "mise.toml"),
            "mise", List.of("config.toml"));
    private static final Set<String> FILE_NAMES;
    /**
     * Package managers' project files whose keys run programs: npm's {@code script-shell},
     * {@code node-options} and {@code git}; yarn's {@code yarnPath} ({@code yarn-path} in v1);
     * pnpm's hooks file; bun's {@code preload}. Also the devcontainer file at the top
     * ({@code postCreateCommand}).
     */
    private static final List<String> PACKAGE_MANAGER_FILES = List.of(".npmrc", ".yarnrc.yml", ".yarnrc",
            ".pnpmfile.cjs", ".pnpmfile.mjs", "pnpmfile.js", "bunfig.toml", ".bunfig.toml", ".devcontainer.json");
    /** mise's per-environment configs ({@code mise.<env>.toml}, dotted or not, {@code .local} or not). */
    public static final String MISE_ENV_FILE = "mise.<env>.toml";

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
        files.addAll(PACKAGE_MANAGER_FILES);
        files.addAll(lefthook);
        FILE_NAMES = Set.copyOf(files);

        List<String> names = new ArrayList<>();
        names.add("magus.yaml");
        // The workspace's YAML spells (.magus/spells/NAME.yaml): a grant the next run obeys.
        names.add(".magus/");
        names.addAll(List.of("mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml", ".mise/", ".tool-versions", ".envrc"));
        names.add(MISE_ENV_FILE);
        names.addAll(List.of(".config/mise/", ".config/mise.toml", "mise/config.toml"));
        names.addAll(List.of(".claude/", ".cursor/", ".gemini/", ".codex/", ".mcp.json"));
        names.addAll(List.of(".vscode/tasks.json", ".vscode/settings.json", ".vscode/launch.json"));
        names.add(".devcontainer/");
        names.addAll(List.of(".pre-commit-config.yaml", ".husky/"));
        names.addAll(lefthook);
        names.addAll(List.of(".lefthook/", ".lefthook-local/"));
        names.addAll(PACKAGE_MANAGER_FILES);
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
    /** {@code .git/commondir}: git reads it in every git dir, the main one too, and takes config and hooks from where it points. */
    public static final String GIT_COMMONDIR = ".git/commondir";
    /** A linked worktree's back link ({@code <git dir>/worktrees/<name>/gitdir}), which git follows to find the checkout. */
    public static final String GIT_DIR_GITDIR = "<git dir>/gitdir";

    /** The entries a config names (see {@link GitIndirections}): the hooks directory itself, a hook in it, an included config. */
    public static final String HOOKS_PATH = "<core.hooksPath>";
    public static final String HOOKS_PATH_HOOK = "<core.hooksPath>/<hook>";
    public static final String INCLUDED_CONFIG = "<include.path>";

    private static final List<String> ENTRIES;

    static {
        List<String> all = new ArrayList<>(List.of(GIT, GIT_HOOKS, GIT_CONFIG, GIT_INFO, GIT_CONFIG_WORKTREE, GIT_COMMONDIR,
                GIT_DIR, GIT_DIR_HOOKS, GIT_DIR_CONFIG, GIT_DIR_INFO, GIT_DIR_CONFIG_WORKTREE, GIT_DIR_COMMONDIR,
                GIT_DIR_GITDIR, HOOKS_PATH, HOOKS_PATH_HOOK, INCLUDED_CONFIG));
        all.addAll(NAME_ENTRIES);
        ENTRIES = List.copyOf(all);
    }

    /**
     * The names whose presence, all three, makes a directory a git dir for the probe (git's
     * own test: {@code HEAD}, {@code objects/}, {@code refs/}). Their kinds are not asked:
     * git follows links to them, and a look-alike with a directory named {@code HEAD} only
     * costs its owner a few refused names.
     */
    public static final List<String> GIT_DIR_MARKERS = List.of("HEAD", "objects", "refs");

    /** The names, lower case, that git obeys right beneath a git dir: what makes the probe worth asking. */
    private static final Set<String> GIT_DIR_TOP = Set.of("hooks", "config", "info", "config.worktree", "commondir",
            "worktrees", "modules");

    /**
     * Tells whether a directory of the workspace is a git dir (a bare repository of any name),
     * by {@link #GIT_DIR_MARKERS}. Asked only as {@link ControlFiles} says; must not throw.
     */
    @FunctionalInterface
    public interface GitDirProbe {
        /** No directory is one: only {@code .git} and the git dirs given by path are known. */
        GitDirProbe NONE = dir -> false;

        /** Whether {@code dir}, absolute and resolved, holds all of {@link #GIT_DIR_MARKERS}. */
        boolean isGitDir(Path dir);
    }

    /** Whether {@code names}, the entries of one directory, hold every one of {@link #GIT_DIR_MARKERS}. */
    public static boolean marksGitDir(java.util.Collection<String> names) {
        return names.containsAll(GIT_DIR_MARKERS);
    }

    private final Path workspaceRoot;
    private final List<Path> gitDirs;
    private final Optional<Path> hooksDir;
    private final List<Path> hooks;
    private final List<Path> included;
    private final Set<String> namedNames;
    private final GitDirProbe probe;

    private ControlFiles(Path workspaceRoot, List<Path> gitDirs, Optional<Path> hooksDir, List<Path> included,
            GitDirProbe probe) {
        this.workspaceRoot = workspaceRoot;
        this.gitDirs = gitDirs;
        this.probe = probe;
        this.hooksDir = hooksDir;
        this.hooks = hooksDir.map(d -> GitIndirections.HOOK_NAMES.stream().map(d::resolve).toList()).orElse(List.of());
        this.included = included;
        Set<String> names = new java.util.HashSet<>();
        hooksDir.map(Path::getFileName).ifPresent(n -> names.add(n.toString().toLowerCase(Locale.ROOT)));
        if (hooksDir.isPresent()) {
            GitIndirections.HOOK_NAMES.forEach(names::add);
        }
        included.stream().map(Path::getFileName).filter(java.util.Objects::nonNull)
                .forEach(n -> names.add(n.toString().toLowerCase(Locale.ROOT)));
        this.namedNames = Set.copyOf(names);
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
        return new ControlFiles(workspaceRoot.normalize(), List.copyOf(dirs), Optional.empty(), List.of(), GitDirProbe.NONE);
    }

    /**
     * These control files, and also what the repository's configs name ({@code core.hooksPath}
     * and the included configs), each given absolute and resolved the way the kernel walks it.
     * The hooks directory itself is a control entry (replacing it with a link is a change), and
     * beneath it every name git runs as a hook ({@link GitIndirections#HOOK_NAMES}); nothing
     * else beneath it is, so a hooks path of {@code .} does not freeze the checkout. A named path
     * that is the workspace or an ancestor of it names nothing.
     */
    public ControlFiles withNamed(Optional<Path> hooksDir, List<Path> included) {
        hooksDir.ifPresent(ControlFiles::requireAbsolute);
        included.forEach(ControlFiles::requireAbsolute);
        Optional<Path> h = hooksDir.map(Path::normalize);
        List<Path> inc = included.stream().map(Path::normalize).filter(p -> !workspaceRoot.startsWith(p)).distinct().toList();
        return new ControlFiles(workspaceRoot, gitDirs, h, inc, probe);
    }

    /**
     * These control files, with the git dirs of the workspace that are not {@code .git} (bare
     * repositories of any name) told by {@code probe} instead of the one given before.
     */
    public ControlFiles withGitDirProbe(GitDirProbe probe) {
        return new ControlFiles(workspaceRoot, gitDirs, hooksDir, included, java.util.Objects.requireNonNull(probe, "probe"));
    }

    /** The hooks directory a config names, when one does. */
    public Optional<Path> hooksDir() {
        return hooksDir;
    }

    /** The configs an include names. */
    public List<Path> included() {
        return included;
    }

    /**
     * The file names, lower case, of what the configs name: the hooks directory, the hook names
     * beneath it, the included configs. A walk that asks {@link #match} only for candidate names
     * (see {@link #entries()}) must ask for these too.
     */
    public Set<String> namedNames() {
        return namedNames;
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
        if (probe != GitDirProbe.NONE) {
            if (resolved.startsWith(workspaceRoot)) {
                Optional<String> inBare = matchProbed(resolved, workspaceRoot.getNameCount());
                if (inBare.isPresent()) {
                    return inBare;
                }
            }
            for (Path g : gitDirs) {
                if (resolved.startsWith(g) && !g.startsWith(workspaceRoot)) {
                    // A bare repository kept inside the common dir of a linked worktree.
                    Optional<String> inBare = matchProbed(resolved, g.getNameCount() + 1);
                    if (inBare.isPresent()) {
                        return inBare;
                    }
                }
            }
        }
        return matchNamed(resolved);
    }

    /**
     * Beneath a git dir the probe knows: each directory from component {@code from} of
     * {@code resolved} down whose next component is one git obeys in a git dir is asked about,
     * and the first that is one and has a control entry at that place decides.
     */
    private Optional<String> matchProbed(Path resolved, int from) {
        int k = resolved.getNameCount();
        for (int i = from; i < k; i++) {
            if (!GIT_DIR_TOP.contains(name(resolved, i))) {
                continue;
            }
            Path dir = i == 0 ? resolved.getRoot() : resolved.getRoot().resolve(resolved.subpath(0, i));
            if (probe.isGitDir(dir)) {
                Optional<String> m = matchGitDirContents(resolved, i, false);
                if (m.isPresent()) {
                    return m;
                }
            }
        }
        return Optional.empty();
    }

    private Optional<String> matchNamed(Path resolved) {
        if (hooksDir.isPresent()) {
            if (resolved.equals(hooksDir.get())) {
                return Optional.of(HOOKS_PATH);
            }
            if (resolved.startsWith(hooksDir.get()) && resolved.getNameCount() > hooksDir.get().getNameCount()) {
                String hook = name(resolved, hooksDir.get().getNameCount());
                if (GitIndirections.HOOK_NAMES.contains(hook)) {
                    return Optional.of(HOOKS_PATH_HOOK);
                }
            }
        }
        for (Path inc : included) {
            if (resolved.startsWith(inc)) {
                return Optional.of(INCLUDED_CONFIG);
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
            if (isMiseEnvFile(name)) {
                return Optional.of(MISE_ENV_FILE);
            }
            List<String> pair = PAIRS.get(name);
            if (pair != null && !last) {
                String second = name(p, i + 1);
                for (String e : pair) {
                    if (e.equals(second) || e.equals(second + "/")) {
                        return Optional.of(name + "/" + e);
                    }
                }
            }
        }
        return Optional.empty();
    }

    /** Whether {@code lower} is {@code mise.<env>.toml} or {@code .mise.<env>.toml}. */
    public static boolean isMiseEnvFile(String lower) {
        String n = lower.startsWith(".") ? lower.substring(1) : lower;
        return n.startsWith("mise.") && n.endsWith(".toml") && n.length() > "mise..toml".length();
    }

    /** {@code p} has {@code .git} at index {@code g}. */
    private static Optional<String> matchInsideDotGit(Path p, int g) {
        if (g == p.getNameCount() - 1) {
            return Optional.of(GIT);
        }
        return matchGitDirContents(p, g + 1, true);
    }

    private static Optional<String> matchGitDir(Path p, int from) {
        if (p.getNameCount() == from) {
            return Optional.of(GIT_DIR);
        }
        return matchGitDirContents(p, from, false);
    }

    /**
     * What git will obey beneath a git dir, {@code p}'s components from {@code from} on: the
     * same rules for {@code .git} in the workspace and a git dir given by path (the common dir
     * of a linked worktree lies outside it, with the other worktrees' and the submodules' git
     * dirs in it).
     */
    private static Optional<String> matchGitDirContents(Path p, int from, boolean dotGit) {
        int k = p.getNameCount();
        switch (name(p, from)) {
            case "hooks":
                return Optional.of(dotGit ? GIT_HOOKS : GIT_DIR_HOOKS);
            case "config":
                return Optional.of(dotGit ? GIT_CONFIG : GIT_DIR_CONFIG);
            case "info":
                return Optional.of(dotGit ? GIT_INFO : GIT_DIR_INFO);
            case "config.worktree":
                return Optional.of(dotGit ? GIT_CONFIG_WORKTREE : GIT_DIR_CONFIG_WORKTREE);
            case "commondir":
                return Optional.of(dotGit ? GIT_COMMONDIR : GIT_DIR_COMMONDIR);
            case "worktrees":
                // worktrees/<name>/ is the git dir of a linked worktree: git takes its config and
                // hooks from where its commondir points, and reads its config.worktree.
                if (k > from + 2) {
                    switch (name(p, from + 2)) {
                        case "config.worktree":
                            return Optional.of(GIT_DIR_CONFIG_WORKTREE);
                        case "commondir":
                            return Optional.of(GIT_DIR_COMMONDIR);
                        case "gitdir":
                            return Optional.of(GIT_DIR_GITDIR);
                        default:
                            return Optional.empty();
                    }
                }
                return Optional.empty();
            case "modules":
                return matchSubmoduleGitDir(p, from + 2);
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
                case "commondir":
                    if (last) {
                        return Optional.of(GIT_DIR_COMMONDIR);
                    }
                    break;
                case "gitdir":
                    if (last) {
                        return Optional.of(GIT_DIR_GITDIR);
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

    private static void requireAbsolute(Path p) {
        if (!p.isAbsolute()) {
            throw new IllegalArgumentException("control files take absolute, resolved paths: " + p);
        }
    }

    @Override
    public String toString() {
        return "ControlFiles[" + workspaceRoot + ", git dirs " + gitDirs + (probe == GitDirProbe.NONE ? "" : ", probed") + "]";
    }
}
