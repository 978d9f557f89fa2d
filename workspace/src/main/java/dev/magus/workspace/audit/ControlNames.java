package dev.magus.workspace.audit;

import dev.magus.policy.control.ControlFiles;
import dev.magus.policy.path.DirectoryReader;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Which entries of a walk are control files, decided by {@link ControlFiles#match}, the list
 * the binding layer refuses writes to, so the audit and the refusal never disagree.
 *
 * <p>{@code match} is asked only about a <em>candidate</em>: one of the components of the
 * specification's entries, compared ignoring ASCII case as {@code match} does. Beneath a
 * matched directory everything is recorded without asking ({@link Control#wholeSubtree}),
 * except beneath a git dir, where only git's own entries count ({@link Place}). A git dir of
 * another name (a bare repository) is told by its listing holding
 * {@link ControlFiles#GIT_DIR_MARKERS}: it is {@linkplain #gitDir registered} before its names
 * are classified, {@code match} learns it through {@link ControlFiles.GitDirProbe}, and the
 * walk marks it {@link Place#BARE} so a rescan registers it again without listing it.
 */
final class ControlNames {
    /** git's data directories, which the walk does not enter where nothing beneath them can be a control file. */
    private static final Set<String> GIT_DATA = Set.of("objects", "refs", "logs", "lfs");

    /**
     * Where in a git dir a listed directory is, so that the walk skips git's data exactly
     * where {@link ControlFiles#match} would find nothing beneath it: {@code objects},
     * {@code refs}, {@code logs} and {@code lfs} right beneath {@code .git} (or a git dir), and
     * at any depth of a submodule's git dir ({@code .git/modules/<name>/...}), but not beneath
     * {@code .git/worktrees/}, where a worktree may be named {@code objects}.
     */
    enum Place {
        /** Not in a git dir. */
        WORKTREE,
        /** {@code .git} itself, or a git dir given by path. */
        GIT_DIR,
        /** Elsewhere beneath a git dir. */
        INSIDE,
        /** {@code .git/modules} itself. */
        MODULES,
        /** Beneath {@code .git/modules/}. */
        SUBMODULE,
        /**
         * A git dir of the workspace told by its listing (a bare repository): its data is
         * walked like any directory, since names matched at any depth stay control files there.
         */
        BARE;

        /**
         * Where a directory listed at this place is, once its listing is known: a bare
         * repository when the listing holds {@link ControlFiles#GIT_DIR_MARKERS}
         * ({@code marked}), in the worktree or beneath {@code .git} outside its submodules
         * (whose git dirs are covered by name).
         */
        Place listed(boolean marked) {
            return marked && (this == WORKTREE || this == INSIDE) ? BARE : this;
        }

        /** Where the directory {@code name} listed here is; empty when the walk skips it. */
        Optional<Place> child(String name) {
            String n = name.toLowerCase(Locale.ROOT);
            return switch (this) {
                case WORKTREE, BARE -> Optional.of(WORKTREE);
                case GIT_DIR -> n.equals("modules") ? Optional.of(MODULES)
                        : GIT_DATA.contains(n) ? Optional.empty() : Optional.of(INSIDE);
                case INSIDE -> Optional.of(INSIDE);
                case MODULES -> Optional.of(SUBMODULE);
                case SUBMODULE -> GIT_DATA.contains(n) ? Optional.empty() : Optional.of(SUBMODULE);
            };
        }
    }

    /**
     * Whether the names of a directory's listing hold every one of
     * {@link ControlFiles#GIT_DIR_MARKERS}, as {@link ControlFiles#marksGitDir} says, without a
     * set per directory.
     */
    static boolean marksGitDir(List<DirectoryReader.Entry> entries) {
        int found = 0;
        List<String> markers = ControlFiles.GIT_DIR_MARKERS;
        for (DirectoryReader.Entry e : entries) {
            int i = markers.indexOf(e.name());
            if (i >= 0) {
                found |= 1 << i;
            }
        }
        return found == (1 << markers.size()) - 1;
    }

    /**
     * The candidate names, lower case: every component of {@link ControlFiles#entries()} but the
     * {@code <git dir>} placeholders. The entries are a constant of the binding layer, so the set
     * is computed once per class, not per run.
     */
    static final Set<String> CANDIDATES = candidates(ControlFiles.entries());

    private final ControlFiles files;
    /** The bare repositories the walks of this audit listed, resolved. */
    private final Set<Path> bare = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** What a matched entry is. */
    record Control(String entry, boolean wholeSubtree) {
    }

    /** {@code files}, their git dirs of other names told by this audit's listings rather than by {@code lstat}. */
    ControlNames(ControlFiles files) {
        this.files = files.withGitDirProbe(bare::contains);
    }

    /** Makes {@code dir}, whose listing holds {@link ControlFiles#GIT_DIR_MARKERS}, a git dir for {@link #control}. */
    void gitDir(Path dir) {
        bare.add(dir);
    }

    /** The bare repositories registered so far. */
    Set<Path> gitDirs() {
        return Set.copyOf(bare);
    }

    /** The candidate names of {@code entries} (see {@link #CANDIDATES}). */
    static Set<String> candidates(List<String> entries) {
        Set<String> names = new HashSet<>();
        for (String e : entries) {
            for (String part : e.split("/")) {
                if (!part.isEmpty() && !part.startsWith("<")) {
                    names.add(part.toLowerCase(Locale.ROOT));
                }
            }
        }
        return Set.copyOf(names);
    }

    ControlFiles files() {
        return files;
    }

    /**
     * Whether {@code name} can be a control entry: a component of the fixed entries, a
     * {@code mise.<env>.toml}, or the name of something this workspace's git configs name.
     */
    boolean candidate(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return CANDIDATES.contains(n) || ControlFiles.isMiseEnvFile(n) || files.namedNames().contains(n);
    }

    /** The control entry {@code path} (named {@code name}) is, asking only for candidates. */
    Optional<Control> classify(Path path, String name) {
        if (!candidate(name)) {
            return Optional.empty();
        }
        return control(path);
    }

    /** The control entry {@code path} is, always asking. */
    Optional<Control> control(Path path) {
        // .git, a git dir and a hooks directory a config names are control files themselves, but
        // beneath them only what git obeys is.
        return files.match(path).map(e -> new Control(e,
                !e.equals(ControlFiles.GIT) && !e.equals(ControlFiles.GIT_DIR) && !e.equals(ControlFiles.HOOKS_PATH)));
    }
}
