package dev.magus.policy;

import dev.magus.policy.control.ControlFiles;
import dev.magus.policy.git.ConfigKey;
import dev.magus.policy.git.GitConfigParser;
import dev.magus.policy.path.Filesystem;
import dev.magus.policy.path.Filesystem.Entry;
import dev.magus.policy.path.PathResolver;
import dev.magus.policy.path.Resolution;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Finds a workspace's git directories by reading {@code .git} as git does, without running git:
 * a {@code .git} directory is the git dir; a {@code .git} file ({@code gitdir: <path>}, relative
 * to the file) names it for a linked worktree or a submodule, whose {@code commondir} (relative to
 * the git dir) names the common dir. The search walks up from the workspace root to the nearest
 * {@code .git}, as git does, but never to home or above: a dotfiles repository at {@code ~} would
 * hand its git dir to every workspace beneath it.
 *
 * <p>Every git dir is granted read-write to the next run, and the previous run could write
 * {@code .git}; so it is believed only where nothing a confined child plants makes it name
 * something else ({@code ln -s ../home .git}, {@code echo 'gitdir: /' > .git}):
 * <ul>
 *   <li>a symbolic link {@code .git} is followed only to a place inside the workspace;</li>
 *   <li>a git dir is a real one ({@code HEAD}, {@code objects/}, {@code refs/}); a linked
 *       worktree's has {@code HEAD} and a {@code commondir} naming a real common dir, and lies in
 *       its {@code worktrees/};</li>
 *   <li>a git dir named by a {@code .git} file names that file back, as git links them (a
 *       worktree's {@code gitdir} file, a submodule's {@code core.worktree}): a child can write
 *       {@code .git} but not another repository's git dir. A {@code --separate-git-dir} one has no
 *       such link until {@code core.worktree} is set in it;</li>
 *   <li>no git dir or common dir is home, the workspace, {@code /}, a system directory
 *       ({@link #SYSTEM}) or an ancestor of one of them, nor beneath {@code /proc}, {@code /sys},
 *       {@code /dev}, {@code /run}, {@code /boot} or {@code /etc}.</li>
 * </ul>
 * Otherwise nothing is granted, and why is a {@link PolicyNote} ({@code magus policy} shows it).
 * Everything is read through the given {@link PathResolver}, so the search runs alike over the
 * host and over a tree in memory.
 */
public final class GitDirs {
    /** How {@code magus policy} names the git dirs' rules and notes. */
    static final String ORIGIN = "core:git";

    /** Directories of the operating system: no git dir is one of them or an ancestor of one. */
    static final List<Path> SYSTEM = List.of("/usr", "/etc", "/proc", "/sys", "/dev", "/bin", "/sbin", "/lib",
            "/lib32", "/lib64", "/libx32", "/boot", "/var", "/var/tmp", "/run", "/tmp", "/opt", "/srv", "/home", "/root",
            "/mnt", "/media", "/System", "/Library", "/private", "/Users", "/Applications", "/Volumes")
            .stream().map(Path::of).toList();
    /** Kernel interfaces, runtime state and configuration: nothing beneath them is a git dir to grant. */
    static final List<Path> NEVER_BENEATH = List.of("/proc", "/sys", "/dev", "/run", "/boot", "/etc", "/private/etc")
            .stream().map(Path::of).toList();

    /** Enough for any {@code .git}, {@code gitdir} or {@code commondir} line; a config is read up to {@link #MAX_CONFIG}. */
    private static final int MAX_LINE_FILE = 4096;
    private static final int MAX_CONFIG = 1 << 16;

    private GitDirs() {
    }

    /**
     * What the search found.
     *
     * @param dirs  the git dirs to grant: the git dir first, then the common dir when it
     *              differs; resolved, existing; empty outside git or when refused
     * @param notes why a {@code .git} that was found grants nothing (at most one note)
     */
    public record Found(List<Path> dirs, List<PolicyNote> notes) {
        public Found {
            dirs = List.copyOf(dirs);
            notes = List.copyOf(notes);
        }

        static final Found NONE = new Found(List.of(), List.of());

        static Found refused(Path subject, String why) {
            return new Found(List.of(), List.of(new PolicyNote(PolicyNote.Kind.GRANTS_NOTHING, ORIGIN, subject.toString(), why)));
        }
    }

    /**
     * What the search found, and where: {@code checkout} is the directory holding the
     * {@code .git} it found, the top of the working tree where git runs hooks; empty when
     * nothing was granted.
     */
    public record Located(Found found, Optional<Path> checkout) {
        static final Located NONE = new Located(Found.NONE, Optional.empty());
    }

    /**
     * The git dirs of the workspace at {@code workspaceRoot}, as {@code resolver} (and its
     * filesystem) sees them.
     *
     * @param workspaceRoot the workspace root, resolved
     * @param home          the home directory, resolved
     */
    public static Found of(Path workspaceRoot, Path home, PathResolver resolver) {
        return locate(workspaceRoot, home, resolver).found();
    }

    /** As {@link #of(Path, Path, PathResolver)}, also saying which directory held the {@code .git}. */
    public static Located locate(Path workspaceRoot, Path home, PathResolver resolver) {
        Objects.requireNonNull(home, "home");
        Filesystem fs = resolver.filesystem();
        Path root = workspaceRoot.toAbsolutePath().normalize();
        for (Path dir = root; dir != null; dir = dir.getParent()) {
            if (Locations.isHomeOrAncestor(dir, home)) {
                return Located.NONE;
            }
            Path dotGit = dir.resolve(".git");
            Entry entry = fs.lstat(dotGit);
            if (!entry.exists()) {
                continue;
            }
            Found found = new Search(root, home, resolver, fs).at(dir, dotGit, entry);
            return new Located(found, found.dirs().isEmpty() ? Optional.empty() : Optional.of(dir));
        }
        return Located.NONE;
    }

    /** One search: what a found {@code .git} is judged against, and what it reads with. */
    private record Search(Path root, Path home, PathResolver resolver, Filesystem fs) {

        Found at(Path dir, Path dotGit, Entry entry) {
            if (entry.kind() == Entry.Kind.LINK) {
                Resolution r = resolver.resolve(dotGit);
                Optional<Path> target = r.resolvedPath();
                if (!r.existing() || !target.orElseThrow().startsWith(root)) {
                    return Found.refused(dotGit, shown(dotGit) + " is a symbolic link"
                            + target.map(t -> " to " + shown(t)).orElse("") + ", out of the workspace or to nothing:"
                            + " a git dir is never reached through a link a run could have planted");
                }
                return directory(dotGit, target.get());
            }
            if (entry.kind() == Entry.Kind.DIRECTORY) {
                return directory(dotGit, dotGit);
            }
            if (entry.kind() == Entry.Kind.FILE) {
                return gitFile(dir, dotGit);
            }
            return Found.refused(dotGit, shown(dotGit) + " is neither a directory nor a regular file");
        }

        /** A {@code .git} directory (or a link to one inside the workspace). */
        private Found directory(Path dotGit, Path gitDir) {
            Optional<String> wrong = dangerous(gitDir).or(() -> notARepository(gitDir));
            return wrong.isPresent() ? Found.refused(dotGit, wrong.get()) : new Found(List.of(gitDir), List.of());
        }

        /** A {@code .git} file naming the git dir of a linked worktree or a submodule. */
        private Found gitFile(Path dir, Path dotGit) {
            Optional<String> line = firstLine(dotGit);
            if (line.isEmpty() || !line.get().startsWith("gitdir:") || line.get().substring(7).isBlank()) {
                return Found.refused(dotGit, shown(dotGit) + " is a file without a 'gitdir: <path>' line");
            }
            String named = line.get().substring(7).strip();
            Optional<Path> gitDir = existingDirectory(named, dir);
            if (gitDir.isEmpty()) {
                return Found.refused(dotGit, shown(dotGit) + " names " + named + ", which is not a directory here");
            }
            Path g = gitDir.get();
            Optional<String> wrong = dangerous(g);
            if (wrong.isPresent()) {
                return Found.refused(dotGit, wrong.get());
            }
            Path commondirFile = g.resolve("commondir");
            if (fs.lstat(commondirFile).kind() == Entry.Kind.FILE) {
                return linkedWorktree(dotGit, g, commondirFile);
            }
            // A submodule's git dir (or one made with --separate-git-dir): a whole repository
            // whose config names this checkout as its worktree.
            wrong = notARepository(g);
            if (wrong.isEmpty() && !coreWorktree(g).flatMap(w -> existingDirectory(w, g)).filter(dir::equals).isPresent()) {
                wrong = Optional.of(shown(g) + " does not name " + shown(dir) + " back (no core.worktree in its config"
                        + " leading here), so it is some other repository's git dir; if it is this checkout's,"
                        + " run 'git config core.worktree " + dir + "' in it");
            }
            return wrong.isPresent() ? Found.refused(dotGit, wrong.get()) : new Found(List.of(g), List.of());
        }

        /** A linked worktree's own git dir {@code g}, and the common dir its {@code commondir} names. */
        private Found linkedWorktree(Path dotGit, Path g, Path commondirFile) {
            if (!is(g.resolve("HEAD"), Entry.Kind.FILE)) {
                return Found.refused(dotGit, shown(g) + " is not a git directory (it has no HEAD)");
            }
            Optional<Path> back = firstLine(g.resolve("gitdir")).filter(s -> !s.isBlank())
                    .flatMap(s -> resolved(s.strip(), g));
            if (back.isEmpty() || !back.get().equals(dotGit)) {
                return Found.refused(dotGit, shown(g) + " does not name " + shown(dotGit) + " back (its gitdir file"
                        + " names " + back.map(this::shown).orElse("nothing") + "), so it is some other worktree's git dir");
            }
            Optional<Path> common = firstLine(commondirFile).filter(s -> !s.isBlank()).flatMap(s -> existingDirectory(s.strip(), g));
            if (common.isEmpty()) {
                return Found.refused(dotGit, shown(commondirFile) + " names no directory");
            }
            Path c = common.get();
            Optional<String> wrong = dangerous(c).or(() -> notARepository(c));
            if (wrong.isEmpty() && !c.resolve("worktrees").equals(g.getParent())) {
                wrong = Optional.of(shown(g) + " is not in the worktrees of the common dir " + shown(c) + " its commondir names");
            }
            return wrong.isPresent() ? Found.refused(dotGit, wrong.get())
                    : new Found(c.equals(g) ? List.of(g) : List.of(g, c), List.of());
        }

        /** Why {@code d} is not a repository (HEAD, objects, refs), if it is not. */
        private Optional<String> notARepository(Path d) {
            if (is(d.resolve("HEAD"), Entry.Kind.FILE) && is(d.resolve("objects"), Entry.Kind.DIRECTORY)
                    && is(d.resolve("refs"), Entry.Kind.DIRECTORY)) {
                return Optional.empty();
            }
            return Optional.of(shown(d) + " is not a git directory (it lacks HEAD, objects or refs)");
        }

        /** Why granting {@code d} (resolved) read-write would hand over far more than a repository, if it would. */
        private Optional<String> dangerous(Path d) {
            String what = null;
            if (Locations.isHomeOrAncestor(d, home)) {
                what = "the home directory or an ancestor of it";
            } else if (root.startsWith(d)) {
                what = "the workspace or an ancestor of it";
            } else if (SYSTEM.stream().anyMatch(s -> s.startsWith(d))) {
                what = "a system directory or an ancestor of one";
            } else if (NEVER_BENEATH.stream().anyMatch(d::startsWith)) {
                what = "beneath a system directory";
            }
            return Optional.ofNullable(what).map(w -> shown(d) + " is " + w + ", which is never granted as a git dir");
        }

        /** {@code spelled} taken from {@code dir} the way the kernel walks it, when it exists. */
        private Optional<Path> resolved(String spelled, Path dir) {
            try {
                Resolution r = resolver.resolve(Path.of(spelled), dir);
                return r.existing() ? r.resolvedPath() : Optional.empty();
            } catch (InvalidPathException notAPath) {
                return Optional.empty();
            }
        }

        private Optional<Path> existingDirectory(String spelled, Path dir) {
            return resolved(spelled, dir).filter(p -> fs.lstat(p).kind() == Entry.Kind.DIRECTORY);
        }

        /** Whether {@code p}, its links followed (as {@code stat}), is of kind {@code kind}. */
        private boolean is(Path p, Entry.Kind kind) {
            Resolution r = resolver.resolve(p);
            return r.existing() && fs.lstat(r.resolvedPath().orElseThrow()).kind() == kind;
        }

        /** {@code core.worktree} of the git dir {@code g}'s config, as written. */
        private Optional<String> coreWorktree(Path g) {
            return GitDirs.coreWorktree(fs.read(g.resolve("config"), MAX_CONFIG));
        }

        /** The first line of a small regular file, not following a link; empty when it is anything else. */
        private Optional<String> firstLine(Path file) {
            return fs.read(file, MAX_LINE_FILE).map(t -> {
                int nl = t.indexOf('\n');
                String line = nl < 0 ? t : t.substring(0, nl);
                return line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
            });
        }

        private String shown(Path p) {
            return Locations.display(p, home);
        }
    }

    /**
     * The check's way of telling a bare repository of any name inside the workspace
     * ({@link ControlFiles.GitDirProbe}): {@code lstat} of each of
     * {@link ControlFiles#GIT_DIR_MARKERS} in the directory, whatever its kind, the same names
     * the after-run audit looks for in the directory's listing. Asked only for the few
     * directories {@link ControlFiles} names (those followed by {@code hooks}, {@code config}
     * and the like on the path checked), so a check pays at most three {@code lstat}s per such
     * directory, usually none.
     */
    public static ControlFiles.GitDirProbe probe(Filesystem fs) {
        Objects.requireNonNull(fs, "fs");
        return dir -> {
            for (String m : ControlFiles.GIT_DIR_MARKERS) {
                if (!fs.lstat(dir.resolve(m)).exists()) {
                    return false;
                }
            }
            return true;
        };
    }

    /** {@code core.worktree} in the text of a git config, the last one as git takes it. */
    private static Optional<String> coreWorktree(Optional<String> text) {
        return text.flatMap(t -> GitConfigParser.readable(t.getBytes(java.nio.charset.StandardCharsets.UTF_8))
                .last(ConfigKey.of("core", null, "worktree"))).map(GitConfigParser::value).filter(v -> !v.isEmpty());
    }
}
