package dev.magus.policy;

import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * The {@code magus.yaml} snippet of a {@link DenialAdvice.Hint}, for the diagnostic's
 * {@code allow_yaml} detail, the live view and {@code magus explain}. It must work when pasted:
 * a path starting with {@code ~} is quoted ({@code path: ~} alone is YAML's null, and a quoted
 * one can never become it), and what the hint cannot say in YAML (that it widens an existing
 * rule, that the directory must be created first) it says in comments, which paste harmlessly.
 */
public final class AllowHint {
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./+@-]+");

    private AllowHint() {
    }

    /**
     * <pre>
     * sandbox:
     *   allow:
     *     - path: "~/.cache/tool"
     *       mode: rw
     * </pre>
     */
    public static String yaml(DenialAdvice.Hint hint, Path home) {
        StringBuilder out = new StringBuilder("sandbox:\n  allow:\n");
        hint.upgrades().ifPresent(r -> out.append("    # widens ").append(Locations.display(r.path(), home)).append(' ')
                .append(r.mode().declared()).append(" (").append(r.origin()).append(") to ")
                .append(hint.mode().declared()).append('\n'));
        if (hint.missing()) {
            out.append("    # ").append(Locations.display(hint.path(), home))
                    .append(" does not exist yet: create it first, a rule for a missing path is skipped\n");
        }
        return out.append("    - path: ").append(scalar(Locations.display(hint.path(), home))).append("\n      mode: ")
                .append(hint.mode().declared()).append('\n').toString();
    }

    /** {@code text} as a YAML scalar: plain when that is unambiguous, else double-quoted ({@code ~} always). */
    public static String scalar(String text) {
        if (PLAIN.matcher(text).matches() && !text.startsWith("-") && !text.startsWith("@")) {
            return text;
        }
        StringBuilder q = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            if (c == '\\' || c == '"') {
                q.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7f) {
                q.append(String.format("\\x%02x", (int) c));
            } else if (c == 0x85 || c == 0x2028 || c == 0x2029) {
                // YAML's own line breaks: escaped, so a quoted path can never end a line.
                q.append(String.format("\\u%04x", (int) c));
            } else {
                q.append(c);
            }
        }
        return q.append('"').toString();
    }
}
