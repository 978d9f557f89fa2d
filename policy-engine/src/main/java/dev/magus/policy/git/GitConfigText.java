package dev.magus.policy.git;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The entries of a git config file, read as git's own parser reads them ({@code config.c}):
 * {@code [section]}, {@code [section "subsection"]} (the subsection kept exact, with
 * {@code \"} and {@code \\} unescaped), the older {@code [section.subsection]} (lowered),
 * a variable on the header's own line, names compared ignoring case, values with double
 * quotes, the escapes {@code \n \t \b \" \\}, a backslash before a line end continuing the
 * value, and {@code #} or {@code ;} starting a comment outside quotes. A variable without
 * {@code =} is a boolean true, spelled here as {@code Optional.empty()} value.
 *
 * <p>Each entry keeps the lines it spans, so a caller can put back or drop one key and leave
 * every other byte of the file as it was. A line git would reject ends the parse there, as
 * git stops at it: what came before is returned, and {@link Parsed#malformedAt()} says where.
 * Pure and immutable.
 */
public final class GitConfigText {

    private GitConfigText() {
    }

    /**
     * One variable.
     *
     * @param section    lower case
     * @param subsection exact, empty when none
     * @param name       lower case
     * @param value      the value as git sees it; empty for a bare boolean
     * @param firstLine  0-based index of the line the variable starts on
     * @param lastLine   0-based index of the line it ends on (continuations)
     */
    public record Entry(String section, Optional<String> subsection, String name, Optional<String> value,
            int firstLine, int lastLine) {

        /** {@code section.subsection.name} with section and name lower case, as {@code git config --list} prints it. */
        public String key() {
            return subsection.map(s -> section + "." + s + "." + name).orElse(section + "." + name);
        }

        /** The value, a bare boolean reading as {@code true}. */
        public String valueOrTrue() {
            return value.orElse("true");
        }
    }

    /**
     * @param entries     every variable, in file order
     * @param lines       the file's lines, each with its line end
     * @param malformedAt the 0-based line git would refuse, when there is one
     */
    public record Parsed(List<Entry> entries, List<String> lines, Optional<Integer> malformedAt) {
        public Parsed {
            entries = List.copyOf(entries);
            lines = List.copyOf(lines);
        }

        /** The last value of {@code key} (as {@link Entry#key()} spells it), as git's "last one wins". */
        public Optional<String> last(String key) {
            Optional<String> found = Optional.empty();
            for (Entry e : entries) {
                if (e.key().equals(key)) {
                    found = Optional.of(e.valueOrTrue());
                }
            }
            return found;
        }
    }

    /** Splits {@code text} into lines that keep their line ends. */
    static List<String> lines(String text) {
        List<String> out = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                out.add(text.substring(start, i + 1));
                start = i + 1;
            }
        }
        if (start < text.length()) {
            out.add(text.substring(start));
        }
        return out;
    }

    public static Parsed parse(String text) {
        return new Reader(text).read();
    }

    /** A cursor over the whole text, tracking which line it is on. */
    private static final class Reader {
        private final String s;
        private final List<String> lines;
        private int pos;
        private int line;
        private String section;
        private Optional<String> subsection = Optional.empty();
        private final List<Entry> entries = new ArrayList<>();

        Reader(String text) {
            this.s = text.startsWith("\uFEFF") ? text.substring(1) : text;
            this.lines = lines(text);
        }

        private int peek() {
            return pos < s.length() ? s.charAt(pos) : -1;
        }

        private int next() {
            if (pos >= s.length()) {
                return -1;
            }
            char c = s.charAt(pos++);
            if (c == '\n') {
                line++;
            }
            return c;
        }

        Parsed read() {
            while (true) {
                int c = next();
                if (c == -1) {
                    return done(Optional.empty());
                }
                if (c == '\n' || c == ' ' || c == '\t' || c == '\r') {
                    continue;
                }
                if (c == '#' || c == ';') {
                    skipLine();
                    continue;
                }
                if (c == '[') {
                    int at = line;
                    if (!header()) {
                        return done(Optional.of(at));
                    }
                    continue;
                }
                if (!Character.isLetter(c) || c > 127 || section == null) {
                    return done(Optional.of(line));
                }
                pos--;
                int at = line;
                if (!variable(at)) {
                    return done(Optional.of(at));
                }
            }
        }

        private Parsed done(Optional<Integer> malformed) {
            return new Parsed(entries, lines, malformed);
        }

        private void skipLine() {
            int c;
            do {
                c = next();
            } while (c != -1 && c != '\n');
        }

        private boolean header() {
            StringBuilder name = new StringBuilder();
            int c;
            while ((c = next()) != -1) {
                if (c == ']') {
                    String n = name.toString();
                    if (n.isEmpty()) {
                        return false;
                    }
                    // [section.sub]: the old spelling, whose subsection is lowered.
                    int dot = n.indexOf('.');
                    section = (dot < 0 ? n : n.substring(0, dot)).toLowerCase(Locale.ROOT);
                    subsection = dot < 0 ? Optional.empty() : Optional.of(n.substring(dot + 1).toLowerCase(Locale.ROOT));
                    return !section.isEmpty();
                }
                if (c == ' ' || c == '\t') {
                    return extendedHeader(name.toString());
                }
                if (!(Character.isLetterOrDigit(c) && c < 128) && c != '-' && c != '.') {
                    return false;
                }
                name.append((char) c);
            }
            return false;
        }

        /** {@code [section "subsection"]}, the cursor after the blank that followed the name. */
        private boolean extendedHeader(String name) {
            int c;
            do {
                c = next();
            } while (c == ' ' || c == '\t');
            if (c != '"' || name.isEmpty()) {
                return false;
            }
            StringBuilder sub = new StringBuilder();
            while ((c = next()) != '"') {
                if (c == -1 || c == '\n') {
                    return false;
                }
                if (c == '\\') {
                    c = next();
                    if (c == -1 || c == '\n') {
                        return false;
                    }
                }
                sub.append((char) c);
            }
            if (next() != ']') {
                return false;
            }
            section = name.toLowerCase(Locale.ROOT);
            subsection = Optional.of(sub.toString());
            return true;
        }

        private boolean variable(int first) {
            StringBuilder name = new StringBuilder();
            int c;
            while ((c = peek()) != -1 && ((Character.isLetterOrDigit(c) && c < 128) || c == '-')) {
                name.append((char) next());
            }
            while ((c = peek()) == ' ' || c == '\t') {
                next();
            }
            String n = name.toString().toLowerCase(Locale.ROOT);
            if (c == -1 || c == '\n' || c == '\r' || c == '#' || c == ';') {
                if (c == '#' || c == ';') {
                    skipLine();
                } else {
                    next();
                }
                entries.add(new Entry(section, subsection, n, Optional.empty(), first, first));
                return true;
            }
            if (c != '=') {
                return false;
            }
            next();
            Optional<String> v = value();
            if (v.isEmpty()) {
                return false;
            }
            int last = line - (pos > 0 && s.charAt(pos - 1) == '\n' ? 1 : 0);
            entries.add(new Entry(section, subsection, n, v, first, Math.max(first, last)));
            return true;
        }

        /** The value up to the end of its (continued) line; empty when git would refuse it. */
        private Optional<String> value() {
            StringBuilder v = new StringBuilder();
            boolean quoted = false;
            boolean leading = true;
            int trailingBlanks = 0;
            while (true) {
                int c = next();
                if (c == -1 || c == '\n') {
                    if (quoted) {
                        return Optional.empty();
                    }
                    v.setLength(v.length() - trailingBlanks);
                    return Optional.of(v.toString());
                }
                if (!quoted && (c == '#' || c == ';')) {
                    skipLine();
                    v.setLength(v.length() - trailingBlanks);
                    return Optional.of(v.toString());
                }
                if (!quoted && (c == ' ' || c == '\t' || c == '\r')) {
                    if (!leading) {
                        v.append((char) c);
                        trailingBlanks++;
                    }
                    continue;
                }
                leading = false;
                if (c == '\\') {
                    int e = next();
                    switch (e) {
                        case '\n' -> {
                            continue;
                        }
                        case '\r' -> {
                            if (peek() == '\n') {
                                next();
                                continue;
                            }
                            return Optional.empty();
                        }
                        case 'n' -> v.append('\n');
                        case 't' -> v.append('\t');
                        case 'b' -> {
                            if (v.length() > 0) {
                                v.setLength(v.length() - 1);
                            }
                        }
                        case '"', '\\' -> v.append((char) e);
                        default -> {
                            return Optional.empty();
                        }
                    }
                    trailingBlanks = 0;
                    continue;
                }
                if (c == '"') {
                    quoted = !quoted;
                    trailingBlanks = 0;
                    continue;
                }
                v.append((char) c);
                trailingBlanks = 0;
            }
        }
    }
}
