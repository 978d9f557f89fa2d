package dev.magus.policy.git;

import dev.magus.policy.path.Filesystem;
import java.nio.file.InvalidPathException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The files git runs or reads as configuration because a config names them, found as git finds
 * them: {@code core.hooksPath} (the last value over the system, global, local and worktree
 * configs; relative to the top of the working tree), and every file {@code include.path} or
 * {@code includeIf.<condition>.path} pulls in (relative to the including file, {@code ~/} to the
 * home, up to git's depth of 10). An {@code includeIf} is followed whatever its condition, which
 * the next checkout may change. A run could write these files and the next unconfined git obeys
 * them, so they are control files while a config names them; the configs are control files
 * already, so a run cannot move the hooks path away from the audit. Pure: reads go through the
 * given {@link Filesystem}.
 */
public final class GitIndirections {
    /** git's limit on nested includes ({@code MAX_INCLUDE_DEPTH}). */
    static final int MAX_INCLUDE_DEPTH = 10;
    private static final int MAX_CONFIG = 1 << 20;

    /**
     * The hooks git runs, by name ({@code githooks(5)}): a hooks directory holds only these as
     * programs git will start.
     */
    public static final List<String> HOOK_NAMES = List.of(
            "applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit",
            "prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase", "post-checkout", "post-merge",
            "pre-push", "pre-receive", "update", "proc-receive", "post-receive", "post-update",
            "reference-transaction", "push-to-checkout", "pre-auto-gc", "post-rewrite", "sendemail-validate",
            "fsmonitor-watchman", "p4-changelist", "p4-prepare-changelist", "p4-post-changelist", "p4-pre-submit",
            "post-index-change");

    private GitIndirections() {
    }

    /**
     * What the configs name.
     *
     * @param hooksDir the directory {@code core.hooksPath} names, when set
     * @param included every config file an include names, existing or not, in the order met
     */
    public record Found(Optional<Path> hooksDir, List<Path> included) {
        public Found {
            included = List.copyOf(included);
        }

        public static final Found NONE = new Found(Optional.empty(), List.of());
    }

    /**
     * @param gitDirs  the repository's git dirs: its own first, then the common dir when it differs
     * @param checkout the top of the working tree
     * @param home     the home directory, for {@code ~/} and the global configs
     * @param xdgConfigHome {@code $XDG_CONFIG_HOME} when set and absolute
     */
    public static Found of(List<Path> gitDirs, Path checkout, Path home, Optional<Path> xdgConfigHome, Filesystem fs) {
        if (gitDirs.isEmpty()) {
            return Found.NONE;
        }
        Path own = gitDirs.get(0);
        Path common = gitDirs.get(gitDirs.size() - 1);
        List<Path> configs = new ArrayList<>();
        configs.add(Path.of("/etc/gitconfig"));
        configs.add(xdgConfigHome.orElse(home.resolve(".config")).resolve("git/config"));
        configs.add(home.resolve(".gitconfig"));
        configs.add(common.resolve("config"));
        // Read whether or not extensions.worktreeConfig is on: turning it on is one key away.
        configs.add(own.resolve("config.worktree"));

        Walk walk = new Walk(home, fs);
        for (Path c : configs) {
            walk.read(c, 0);
        }
        Optional<Path> hooks = walk.hooksPath.flatMap(v -> path(v, checkout, home));
        return new Found(hooks, List.copyOf(walk.included));
    }

    /** The configs read so far, the includes they named and the last hooks path. */
    private static final class Walk {
        final Path home;
        final Filesystem fs;
        final Set<Path> included = new LinkedHashSet<>();
        Optional<String> hooksPath = Optional.empty();

        Walk(Path home, Filesystem fs) {
            this.home = home;
            this.fs = fs;
        }

        void read(Path file, int depth) {
            Optional<String> text = fs.read(file, MAX_CONFIG);
            if (text.isEmpty()) {
                return;
            }
            for (ConfigEntry e : GitConfigParser.readable(text.get().getBytes(StandardCharsets.UTF_8)).entries()) {
                ConfigKey k = e.key();
                Optional<String> value = e.value().map(GitConfigParser::value);
                if (k.section().equals("core") && k.subsection().isEmpty() && k.name().equals("hookspath")) {
                    hooksPath = value;
                } else if (k.name().equals("path") && value.isPresent()
                        && ((k.section().equals("include") && k.subsection().isEmpty())
                        || (k.section().equals("includeif") && k.subsection().isPresent()))) {
                    Optional<Path> target = path(value.get(), file.getParent(), home);
                    if (target.isPresent() && included.add(target.get()) && depth + 1 < MAX_INCLUDE_DEPTH) {
                        read(target.get(), depth + 1);
                    }
                }
            }
        }
    }

    /** A path value as git expands it ({@code ~/}, relative to {@code base}); empty when it names nothing. */
    static Optional<Path> path(String value, Path base, Path home) {
        if (value.isEmpty() || value.startsWith("%(prefix)/") || value.indexOf('\0') >= 0) {
            return Optional.empty();
        }
        try {
            Path p;
            if (value.equals("~")) {
                p = home;
            } else if (value.startsWith("~/")) {
                p = home.resolve(value.substring(2));
            } else if (value.startsWith("~")) {
                // ~user: another user's home, never one this run can write.
                return Optional.empty();
            } else {
                p = base.resolve(value);
            }
            return Optional.of(p.normalize());
        } catch (InvalidPathException notAPath) {
            return Optional.empty();
        }
    }
}
