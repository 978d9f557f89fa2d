package dev.magus.env;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Echo;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;

/**
 * Which variable names magus accepts from a declaration or an overlay: the portable shell
 * spelling {@code [A-Za-z_][A-Za-z0-9_]*}, the same one passthrough names use. Host names are
 * never validated: whatever the host holds is only filtered, not judged.
 */
public final class VariableNames {
    private VariableNames() {
    }

    /** Checked by hand rather than by a regex: overlays are validated on every run. */
    public static boolean isValid(String name) {
        if (name.isEmpty() || !head(name.charAt(0))) {
            return false;
        }
        for (int i = 1; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!head(c) && !(c >= '0' && c <= '9')) {
                return false;
            }
        }
        return true;
    }

    /**
     * Returns {@code name} when valid; otherwise MGS2004 naming {@code source}, the place that
     * supplied it ({@code --env}, {@code env\set} at a magusfile line, ...).
     */
    public static String require(String name, String source) {
        if (!isValid(name)) {
            throw new SandboxException(Diagnostic.of(Code.MGS2004,
                    "invalid environment variable name " + Echo.quoted(name)
                            + ": a name is a letter or '_' followed by letters, digits or '_'",
                    printable(name), Operation.NONE, Layer.POLICY, source));
        }
        return name;
    }

    /** A value with NUL cannot reach execve; it is refused rather than silently truncated. */
    public static String requireValue(String name, String value, String source) {
        if (value.indexOf('\0') >= 0) {
            throw new SandboxException(Diagnostic.of(Code.MGS2004,
                    "the value given for " + name + " contains a NUL character and cannot be passed to a child",
                    name, Operation.NONE, Layer.POLICY, source));
        }
        return value;
    }

    private static boolean head(char c) {
        return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    }

    /** Control characters are escaped so a hostile name cannot forge terminal output. */
    private static String printable(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                b.append(String.format("\\x%02x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
