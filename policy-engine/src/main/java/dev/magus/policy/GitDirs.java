package dev.magus.policy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Finds the git directories of a workspace by reading {@code .git} the way git does, without
 * running git: a {@code .git} directory is the git dir; a {@code .git} file
 * ({@code gitdir: <path>}, relative to the file) names it for a linked worktree or a
 * submodule, and that git dir's {@code commondir} file (relative to the git dir) names the
 * common dir holding config, hooks, objects and refs.
 *
 * <p>The search walks up from the workspace root to the nearest {@code .git}, as git's own
 * discovery does, so a workspace in a sub-directory of a repository can still commit. It
 * never looks at home or above: a dotfiles repository at {@code ~} would otherwise hand its
 * git dir to every workspace beneath it.
 */
public final class GitDirs {
    private GitDirs() {
    }

    /** The git dirs (git dir first, then the common dir when it differs), absolute and normalized; empty outside git. */
    public static List<Path> of(Path workspaceRoot, Path home) {
        for (Path dir = workspaceRoot.toAbsolutePath().normalize(); dir != null; dir = dir.getParent()) {
            if (Locations.isHomeOrAncestor(dir, home)) {
                return List.of();
            }
            Path dotGit = dir.resolve(".git");
            if (Files.isDirectory(dotGit)) {
                return List.of(dotGit);
            }
            if (Files.isRegularFile(dotGit)) {
                return fromGitFile(dotGit);
            }
        }
        return List.of();
    }

    private static List<Path> fromGitFile(Path dotGit) {
        Optional<String> gitdir = firstLine(dotGit).filter(l -> l.startsWith("gitdir:")).map(l -> l.substring(7).strip());
        if (gitdir.isEmpty() || gitdir.get().isEmpty()) {
            return List.of();
        }
        Path dir = dotGit.getParent().resolve(gitdir.get()).normalize();
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<Path> out = new ArrayList<>(List.of(dir));
        Path commondir = dir.resolve("commondir");
        if (Files.isRegularFile(commondir, LinkOption.NOFOLLOW_LINKS)) {
            firstLine(commondir).filter(s -> !s.isBlank()).map(s -> dir.resolve(s.strip()).normalize())
                    .filter(Files::isDirectory).filter(c -> !c.equals(dir)).ifPresent(out::add);
        }
        return List.copyOf(out);
    }

    private static Optional<String> firstLine(Path file) {
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            return lines.isEmpty() ? Optional.empty() : Optional.of(lines.get(0));
        } catch (IOException e) {
            // An unreadable .git is a repository git itself could not use: nothing to grant.
            return Optional.empty();
        }
    }
}
