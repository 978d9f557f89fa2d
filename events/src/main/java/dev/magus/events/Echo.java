package dev.magus.events;

/**
 * How a value someone else wrote (a magus.yaml scalar, a flag's argument, a variable, a path a
 * child touched) is echoed back in a diagnostic's message: short enough to read, and never able
 * to drive the terminal it is printed on.
 *
 * <p>Two harms are kept out. A 1 MB {@code sandbox.mode} echoed in full buries the line that
 * explains it; so a value is cut after {@value #MAX} characters and says how long it was. And a
 * value holding ESC, a carriage return or a bidirectional override could rewrite or hide what
 * the person sees (a forged "allowed", a line erased); so every control character is shown as an
 * escape ({@code \x1b}, {@code \n}, and for U+202E a backslash, u and its four hex digits) instead of being sent.
 */
public final class Echo {
    /** The most characters of a value a message shows. */
    public static final int MAX = 120;

    private Echo() {
    }

    /**
     * {@code 'value'} in single quotes, control characters made visible, cut after {@link #MAX}
     * characters with an ellipsis and its full length: {@code 'aaaa…' (1048576 characters)}.
     */
    public static String quoted(String value) {
        String shown = visible(value);
        int points = shown.codePointCount(0, shown.length());
        if (points <= MAX) {
            return "'" + shown + "'";
        }
        int end = shown.offsetByCodePoints(0, MAX);
        return "'" + shown.substring(0, end) + "…' (" + value.codePointCount(0, value.length()) + " characters)";
    }

    /**
     * {@code value} as {@link #quoted} shows it, without the quotes and the length: for a name
     * inside a diagnostic's source ({@code --env NAME}, {@code sandbox.NAME}).
     */
    public static String cut(String value) {
        String shown = visible(value);
        int points = shown.codePointCount(0, shown.length());
        return points <= MAX ? shown : shown.substring(0, shown.offsetByCodePoints(0, MAX)) + "…";
    }

    /**
     * {@code text} with every control character as an escape: C0 and C1 controls and DEL as
     * {@code \xNN} ({@code \t}, {@code \n}, {@code \r} by name), and the Unicode line separators
     * and bidirectional controls as a backslash, u and four hex digits. Everything else, non-ASCII letters included,
     * is kept as it is.
     */
    public static String visible(String text) {
        int i = 0;
        while (i < text.length() && !control(text.charAt(i))) {
            i++;
        }
        if (i == text.length()) {
            return text;
        }
        StringBuilder b = new StringBuilder(text.length() + 16).append(text, 0, i);
        for (; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!control(c)) {
                b.append(c);
            } else if (c == '\n') {
                b.append("\\n");
            } else if (c == '\t') {
                b.append("\\t");
            } else if (c == '\r') {
                b.append("\\r");
            } else if (c <= 0xff) {
                b.append(String.format("\\x%02x", (int) c));
            } else {
                b.append(String.format("\\u%04x", (int) c));
            }
        }
        return b.toString();
    }

    private static boolean control(char c) {
        return c < 0x20 || (c >= 0x7f && c <= 0x9f)
                // line and paragraph separators, bidirectional embeddings, overrides and isolates
                || c == 0x2028 || c == 0x2029 || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)
                || c == 0x200e || c == 0x200f || c == 0x061c;
    }
}
