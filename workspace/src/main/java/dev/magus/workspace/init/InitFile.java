package dev.magus.workspace.init;

import dev.magus.events.Mode;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The magus.yaml {@code magus init} writes: {@code sandbox.mode} (best-effort unless asked) and the
 * {@code projects:} found, in the shape the README shows, with a comment explaining every line.
 */
public final class InitFile {
    /** What a directory may be written as without quotes. */
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./-]+");

    private InitFile() {
    }

    /** The file with {@code sandbox.mode} set to {@code mode} ({@code magus init --mode}). */
    public static String render(List<ProjectDetector.Project> projects, Mode mode) {
        List<String> l = new ArrayList<>();
        l.add("# magus.yaml, written by `magus init`: what this workspace's runs may touch. Edit it freely;");
        l.add("# `magus policy` shows the policy it gives, `magus explain CODE` what each MGS code means.");
        l.add("sandbox:                     # the sandbox of every `magus run` in this directory and below");
        l.add(pad("  mode: " + mode.spelling()) + "# best-effort: confined by Landlock where this kernel has it, by magus's"
                + " own checks everywhere; required refuses to run without Landlock; off confines nothing");
        l.add("projects:                    # the projects here, each with the spells (toolchain declarations) it"
                + " needs; one inside another is its descendant");
        for (ProjectDetector.Project p : projects) {
            String dir = p.dir().equals(".") ? "." : quoted(p.dir());
            String where = p.dir().equals(".") ? "the workspace root" : "a project, relative to this file";
            l.add(pad("  - dir: " + dir) + "# " + where);
            String spells = "[" + String.join(", ", p.spells()) + "]";
            String why = p.markers().isEmpty() ? "no marker file found: add spells by hand (node, java, rust, go, python, ...)"
                    : "found " + String.join(", ", p.markers());
            l.add(pad("    spells: " + spells) + "# " + why);
        }
        return String.join("\n", l) + "\n";
    }

    private static String pad(String s) {
        return s.length() >= 29 ? s + "  " : s + " ".repeat(29 - s.length());
    }

    /** A directory as a YAML scalar: plain when it can be, else double-quoted with escapes. */
    static String quoted(String dir) {
        if (PLAIN.matcher(dir).matches() && !dir.startsWith("-")) {
            return dir;
        }
        StringBuilder b = new StringBuilder("\"");
        dir.codePoints().forEach(c -> {
            if (c == '"' || c == '\\') {
                b.append('\\').appendCodePoint(c);
            } else if (c < 0x20 || c == 0x7f) {
                b.append(String.format("\\x%02x", c));
            } else {
                b.appendCodePoint(c);
            }
        });
        return b.append('"').toString();
    }
}
