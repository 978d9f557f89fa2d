package dev.magus.workspace.audit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The control entries of submodules' git dirs ({@code .git/modules/<name>/hooks},
 * {@code config}, {@code info}, {@code config.worktree}) beneath a directory the walk can
 * search but not list ({@link Walker#byName}): the names are not listable there, so they are
 * taken from the checkout's {@code .gitmodules} ({@code [submodule "<name>"]}, the name git
 * uses for {@code .git/modules/<name>}). A name with a {@code ..} component, or one that
 * leads outside {@code .git/modules}, is ignored. Nested submodules (a submodule's own
 * {@code .gitmodules}) are not followed.
 */
final class SubmoduleNames {
    private static final Pattern SECTION = Pattern.compile("^\\s*\\[\\s*submodule\\s+\"((?:[^\"\\\\]|\\\\.)*)\"\\s*]",
            Pattern.MULTILINE);
    private static final List<String> ENTRIES = List.of("hooks", "config", "info", "config.worktree");
    /** A {@code .gitmodules} larger than this is not read (nothing found by it; the directory stays unaudited). */
    static final long MAX_BYTES = 1 << 20;

    private SubmoduleNames() {
    }

    /** The submodule git dirs' control entries strictly beneath {@code dir}, when {@code dir} is in a checkout's {@code .git}. */
    static List<Path> entriesBeneath(Path dir) {
        int g = -1;
        for (int i = 0; i < dir.getNameCount(); i++) {
            if (dir.getName(i).toString().toLowerCase(Locale.ROOT).equals(".git")) {
                g = i;
                break;
            }
        }
        if (g < 0) {
            return List.of();
        }
        Path root = dir.getRoot();
        Path worktree = g == 0 ? root : root.resolve(dir.subpath(0, g));
        Path modules = worktree.resolve(".git").resolve("modules");
        if (!(dir.equals(worktree.resolve(".git")) || dir.startsWith(modules))) {
            return List.of();
        }
        List<Path> out = new ArrayList<>();
        for (String name : names(read(worktree.resolve(".gitmodules")))) {
            Path base = modules.resolve(name);
            if (!base.normalize().equals(base) || !base.startsWith(modules) || base.equals(modules)) {
                continue;
            }
            for (String e : ENTRIES) {
                Path child = base.resolve(e);
                if (child.startsWith(dir) && !child.equals(dir)) {
                    out.add(child);
                }
            }
        }
        return out;
    }

    /** The submodule names of a {@code .gitmodules} text, with git's {@code \"} and {@code \\} undone. */
    static List<String> names(String text) {
        List<String> out = new ArrayList<>();
        Matcher m = SECTION.matcher(text);
        while (m.find()) {
            String name = m.group(1).replaceAll("\\\\(.)", "$1");
            if (!name.isEmpty() && !name.startsWith("/") && !name.contains("\0")) {
                out.add(name);
            }
        }
        return out;
    }

    private static String read(Path gitmodules) {
        try {
            if (!Files.isRegularFile(gitmodules, LinkOption.NOFOLLOW_LINKS) || Files.size(gitmodules) > MAX_BYTES) {
                return "";
            }
            return new String(Files.readAllBytes(gitmodules), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
