package dev.magus.policy.git;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads a git config text the way git's own parser does: {@code [section]}, {@code [section
 * "subsection"]} (backslash escapes {@code "} and {@code \}), the legacy {@code [section.sub]}
 * form, a key followed by {@code = value} or by nothing (true), a key on the header's line,
 * values with double quotes, the escapes {@code \n \t \b \\ \"}, a backslash continuing the
 * line, {@code #} and {@code ;} comments outside quotes, CRLF line ends and a leading UTF-8
 * byte order mark.
 *
 * <p>The text is bytes read as ISO-8859-1 ({@link #text(byte[])}), so an offset is a byte
 * offset and an edited text written back as ISO-8859-1 keeps every untouched byte.
 *
 * <p>What git would refuse ("bad config line") is {@link Malformed}: the caller must not
 * guess what such a file means to another reader of it.
 */
public final class GitConfigParser {
    private GitConfigParser() {
    }

    /** A text git would not read; {@code offset} is where reading it stopped. */
    public static final class Malformed extends Exception {
        private final int offset;

        Malformed(String why, int offset) {
            super(why + " at byte " + offset);
            this.offset = offset;
        }

        public int offset() {
            return offset;
        }
    }

    /** The bytes of a config file as the text this parser reads, one char per byte. */
    public static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    /** The bytes of an edited text. */
    public static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    public static ParsedGitConfig parse(String t) throws Malformed {
        return parse(t, true);
    }

    /**
     * What git reads of a config file's bytes before a line it refuses: git stops at that line
     * (and then refuses to run), so nothing after it can name a hook, an include or a program.
     * For a reader that only needs what the file makes git do; values as {@link #value}.
     */
    public static ParsedGitConfig readable(byte[] bytes) {
        try {
            return parse(text(bytes), false);
        } catch (Malformed e) {
            throw new IllegalStateException("a lenient parse threw", e);
        }
    }

    /** A value this parser read, as the UTF-8 text git hands to the program or path it names. */
    public static String value(String read) {
        return new String(read.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
    }

    private static ParsedGitConfig parse(String t, boolean strict) throws Malformed {
        List<ConfigSection> sections = new ArrayList<>();
        List<ConfigEntry> entries = new ArrayList<>();
        try {
            read(t, sections, entries);
        } catch (Malformed e) {
            if (strict) {
                throw e;
            }
        }
        return new ParsedGitConfig(t, sections, entries);
    }

    private static void read(String t, List<ConfigSection> sections, List<ConfigEntry> entries) throws Malformed {
        int n = t.length();
        int i = t.startsWith("\u00ef\u00bb\u00bf") ? 3 : 0;
        int lineStart = i;
        // The current section: its name, subsection, header text and where its line starts.
        String section = null;
        String subsection = null;
        String header = null;
        int sectionStart = -1;
        while (i < n) {
            char c = t.charAt(i);
            if (c == '\n') {
                i++;
                lineStart = i;
                continue;
            }
            if (c == ' ' || c == '\t' || c == '\r') {
                i++;
                continue;
            }
            if (c == '#' || c == ';') {
                int nl = t.indexOf('\n', i);
                i = nl < 0 ? n : nl;
                continue;
            }
            if (c == '[') {
                if (section != null) {
                    sections.add(new ConfigSection(section, java.util.Optional.ofNullable(subsection), header, sectionStart,
                            lineStart));
                }
                int open = i;
                i++;
                int nameStart = i;
                while (i < n && (isAlnum(t.charAt(i)) || t.charAt(i) == '-' || t.charAt(i) == '.')) {
                    i++;
                }
                String name = t.substring(nameStart, i);
                if (name.isEmpty()) {
                    throw new Malformed("a section header without a name", open);
                }
                if (i < n && t.charAt(i) == ']') {
                    String lower = name.toLowerCase(java.util.Locale.ROOT);
                    int dot = lower.indexOf('.');
                    section = dot < 0 ? lower : lower.substring(0, dot);
                    subsection = dot < 0 ? null : lower.substring(dot + 1);
                    if (section.isEmpty()) {
                        throw new Malformed("a section header without a name", open);
                    }
                } else if (i < n && (t.charAt(i) == ' ' || t.charAt(i) == '\t')) {
                    if (name.indexOf('.') >= 0) {
                        throw new Malformed("a dotted section name with a subsection", open);
                    }
                    while (i < n && (t.charAt(i) == ' ' || t.charAt(i) == '\t')) {
                        i++;
                    }
                    if (i >= n || t.charAt(i) != '"') {
                        throw new Malformed("a subsection not in double quotes", i);
                    }
                    i++;
                    StringBuilder sub = new StringBuilder();
                    while (true) {
                        if (i >= n || t.charAt(i) == '\n') {
                            throw new Malformed("an unterminated subsection", i);
                        }
                        char s = t.charAt(i++);
                        if (s == '"') {
                            break;
                        }
                        if (s == '\\') {
                            if (i >= n || t.charAt(i) == '\n') {
                                throw new Malformed("an unterminated subsection", i);
                            }
                            s = t.charAt(i++);
                        }
                        sub.append(s);
                    }
                    if (i >= n || t.charAt(i) != ']') {
                        throw new Malformed("a section header not closed right after its subsection", i);
                    }
                    section = name.toLowerCase(java.util.Locale.ROOT);
                    subsection = sub.toString();
                } else {
                    throw new Malformed("a bad section header", open);
                }
                i++;
                header = t.substring(open, i);
                sectionStart = lineStart;
                continue;
            }
            if (!isAlpha(c)) {
                throw new Malformed("a bad config line", i);
            }
            if (section == null) {
                throw new Malformed("a key before any section", i);
            }
            int keyStart = i;
            while (i < n && (isAlnum(t.charAt(i)) || t.charAt(i) == '-')) {
                i++;
            }
            String key = t.substring(keyStart, i);
            while (i < n && (t.charAt(i) == ' ' || t.charAt(i) == '\t')) {
                i++;
            }
            Optional<String> value;
            if (i >= n || t.charAt(i) == '\n' || (t.charAt(i) == '\r' && i + 1 < n && t.charAt(i + 1) == '\n')) {
                value = Optional.empty();
                i = i >= n ? n : t.indexOf('\n', i) + 1;
            } else if (t.charAt(i) == '=') {
                i++;
                StringBuilder v = new StringBuilder();
                i = value(t, i, v);
                value = Optional.of(v.toString());
            } else {
                throw new Malformed("a key followed by neither '=' nor the end of its line", i);
            }
            boolean inline = !t.substring(lineStart, keyStart).isBlank();
            entries.add(new ConfigEntry(new ConfigKey(section, Optional.ofNullable(subsection), key), value,
                    inline ? keyStart : lineStart, i, inline, header));
            lineStart = i;
        }
        if (section != null) {
            sections.add(new ConfigSection(section, Optional.ofNullable(subsection), header, sectionStart, n));
        }
    }

    /** Reads a value from {@code i} into {@code out}; returns the offset just past its line's newline (or the end). */
    private static int value(String t, int i, StringBuilder out) throws Malformed {
        int n = t.length();
        boolean quote = false;
        boolean comment = false;
        int space = 0;
        while (true) {
            char c;
            if (i >= n) {
                c = '\n';
            } else {
                c = t.charAt(i++);
                if (c == '\r' && i < n && t.charAt(i) == '\n') {
                    c = t.charAt(i++);
                }
            }
            if (c == '\n') {
                if (quote) {
                    throw new Malformed("an unterminated quote", i);
                }
                return i;
            }
            if (comment) {
                continue;
            }
            if (isSpace(c) && !quote) {
                if (out.length() > 0) {
                    space++;
                }
                continue;
            }
            if (!quote && (c == ';' || c == '#')) {
                comment = true;
                continue;
            }
            for (; space > 0; space--) {
                out.append(' ');
            }
            if (c == '\\') {
                char e;
                if (i >= n) {
                    e = '\n';
                } else {
                    e = t.charAt(i++);
                    if (e == '\r' && i < n && t.charAt(i) == '\n') {
                        e = t.charAt(i++);
                    }
                }
                switch (e) {
                    case '\n':
                        continue;
                    case 't':
                        e = '\t';
                        break;
                    case 'b':
                        e = '\b';
                        break;
                    case 'n':
                        e = '\n';
                        break;
                    case '\\', '"':
                        break;
                    default:
                        throw new Malformed("an unknown escape \\" + e, i - 1);
                }
                out.append(e);
                continue;
            }
            if (c == '"') {
                quote = !quote;
                continue;
            }
            out.append(c);
        }
    }

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n';
    }

    private static boolean isAlpha(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static boolean isAlnum(char c) {
        return isAlpha(c) || (c >= '0' && c <= '9');
    }
}
