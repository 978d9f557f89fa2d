package dev.magus.policy;

import dev.magus.policy.fs.AccessMode;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * The {@code magus.yaml} snippet that would allow a denied access, for the diagnostic's
 * {@code allow_yaml} detail and {@code magus explain}. It names what a user would declare: the
 * directory holding the file rather than the file, but never a directory so wide it would
 * grant nothing (home, its ancestors, {@code /}), where it names the path itself instead.
 */
public final class AllowHint {
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./~+@-]+");

    private AllowHint() {
    }

    /** The path a user would declare to allow access to {@code resolved}. */
    public static Path suggestedPath(Path resolved, Path home) {
        Path dir;
        if (Files.isDirectory(resolved, LinkOption.NOFOLLOW_LINKS)) {
            dir = resolved;
        } else if (Files.exists(resolved, LinkOption.NOFOLLOW_LINKS)) {
            dir = resolved.getParent();
        } else {
            // A path still to be created: the directory that exists, or the first one the tool
            // will create under home (~/.newtool rather than all of ~).
            Path missing = resolved;
            dir = resolved.getParent();
            while (dir != null && !Files.isDirectory(dir)) {
                missing = dir;
                dir = dir.getParent();
            }
            if (dir != null && Locations.isHomeOrAncestor(dir, home)) {
                dir = missing;
            }
        }
        if (dir == null || Locations.isHomeOrAncestor(dir, home) || dir.getNameCount() == 0) {
            return resolved;
        }
        return dir;
    }

    /**
     * <pre>
     * sandbox:
     *   allow:
     *     - path: ~/.cache/tool
     *       mode: rw
     * </pre>
     */
    public static String yaml(Path path, AccessMode mode, Path home) {
        return "sandbox:\n  allow:\n    - path: " + scalar(Locations.display(path, home)) + "\n      mode: " + mode.declared() + "\n";
    }

    private static String scalar(String text) {
        if (PLAIN.matcher(text).matches() && !text.startsWith("-") && !text.startsWith("@")) {
            return text;
        }
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
