package dev.magus.landlock.denials.infer;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A tool's line saying a mode change was refused with EPERM, the way the seccomp layer refuses
 * a set-user-ID or set-group-ID mode ({@code dev.magus.landlock.seccomp.SetidModes}): GNU
 * {@code chmod}, {@code install} and {@code cp -p}, and {@code tar}, whose line shows the mode
 * it wanted (only one with an {@code s} or {@code S} is taken). Pure: the path as the line
 * names it, without its quotes; {@link KernelDenials} decides whether the refusal was the
 * filter's.
 */
final class SetidRefusal {
    private SetidRefusal() {
    }

    private static final Pattern COREUTILS = Pattern.compile(
            "^(?:chmod: changing permissions of|install: cannot change permissions of|cp: preserving permissions for)"
                    + " (.+): Operation not permitted$");
    private static final Pattern TAR = Pattern.compile(
            "^g?tar: (.+): Cannot change mode to [-rwxsStT]{9}: Operation not permitted$");
    private static final Pattern TAR_SETID = Pattern.compile("^(?:..[sS]|.....[sS])");

    /** The path a refused mode change names, as written (relative or absolute), or empty. */
    static Optional<String> path(String line) {
        String l = line.strip();
        Matcher m = COREUTILS.matcher(l);
        if (m.matches()) {
            return unquote(m.group(1));
        }
        m = TAR.matcher(l);
        if (m.matches()) {
            String mode = l.substring(l.indexOf("Cannot change mode to ") + "Cannot change mode to ".length(),
                    l.indexOf(": Operation not permitted"));
            return TAR_SETID.matcher(mode).find() ? unquote(m.group(1)) : Optional.empty();
        }
        return Optional.empty();
    }

    private static Optional<String> unquote(String quoted) {
        String p = quoted;
        if (p.length() >= 2 && (p.startsWith("'") && p.endsWith("'") || p.startsWith("\"") && p.endsWith("\"")
                || p.startsWith("\u2018") && p.endsWith("\u2019"))) {
            p = p.substring(1, p.length() - 1);
        }
        return p.isEmpty() ? Optional.empty() : Optional.of(p);
    }
}
