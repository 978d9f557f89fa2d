package dev.magus.server.client;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON of the control frames, for {@link FastClient} only: a string writer and a reader of
 * objects, arrays, strings, numbers, booleans and null. Numbers are read as {@code long} when
 * integral and in its range, else {@code double}. Jackson speaks the same JSON everywhere else
 * (MiniJsonTest checks that each reads what the other writes).
 *
 * <p>Kept, against the rule that a dependency's work is not written by hand, because Jackson's
 * own start (jackson-core's streaming API alone) costs this client more CPU than the whole
 * budget its start has above a trivial JVM: {@code bench/client-json-cost.sh} measures both, and
 * bench/README.md gives the figure.
 */
final class MiniJson {
    private final String s;
    private int i;

    private MiniJson(String s) {
        this.s = s;
    }

    /** One JSON value; a {@link Map} for an object. */
    static Object parse(String text) {
        MiniJson p = new MiniJson(text);
        Object v = p.value();
        p.space();
        if (p.i != text.length()) {
            throw p.error("trailing text");
        }
        return v;
    }

    /** {@code "text"}, escaped as JSON requires. */
    static StringBuilder quote(StringBuilder out, String text) {
        out.append('"');
        for (int k = 0; k < text.length(); k++) {
            char c = text.charAt(k);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    boolean pair = Character.isHighSurrogate(c) && k + 1 < text.length()
                            && Character.isLowSurrogate(text.charAt(k + 1));
                    if (pair) {
                        out.append(c).append(text.charAt(++k));
                    } else if (c < 0x20 || Character.isSurrogate(c)) {
                        // A lone surrogate is escaped: in UTF-8 it would be '?', and it is a byte of an
                        // argument that was not UTF-8 (RawBytes), which the server gives the child back.
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"');
    }

    private Object value() {
        space();
        if (i >= s.length()) {
            throw error("unexpected end");
        }
        char c = s.charAt(i);
        switch (c) {
            case '{':
                return object();
            case '[':
                return array();
            case '"':
                return string();
            case 't':
                return literal("true", Boolean.TRUE);
            case 'f':
                return literal("false", Boolean.FALSE);
            case 'n':
                return literal("null", null);
            default:
                return number();
        }
    }

    private Map<String, Object> object() {
        Map<String, Object> out = new LinkedHashMap<>();
        i++;
        space();
        if (peek() == '}') {
            i++;
            return out;
        }
        while (true) {
            space();
            String key = string();
            space();
            expect(':');
            out.put(key, value());
            space();
            if (peek() == ',') {
                i++;
            } else {
                expect('}');
                return out;
            }
        }
    }

    private List<Object> array() {
        List<Object> out = new ArrayList<>();
        i++;
        space();
        if (peek() == ']') {
            i++;
            return out;
        }
        while (true) {
            out.add(value());
            space();
            if (peek() == ',') {
                i++;
            } else {
                expect(']');
                return out;
            }
        }
    }

    private String string() {
        expect('"');
        StringBuilder b = new StringBuilder();
        while (true) {
            if (i >= s.length()) {
                throw error("unterminated string");
            }
            char c = s.charAt(i++);
            if (c == '"') {
                return b.toString();
            }
            if (c != '\\') {
                b.append(c);
                continue;
            }
            char e = s.charAt(i++);
            switch (e) {
                case 'n' -> b.append('\n');
                case 'r' -> b.append('\r');
                case 't' -> b.append('\t');
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'u' -> {
                    b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                    i += 4;
                }
                default -> b.append(e); // \" \\ \/
            }
        }
    }

    private Object number() {
        int start = i;
        while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
            i++;
        }
        String n = s.substring(start, i);
        if (n.isEmpty()) {
            throw error("unexpected character");
        }
        if (n.contains(".") || n.contains("e") || n.contains("E")) {
            return Double.parseDouble(n);
        }
        try {
            return Long.parseLong(n);
        } catch (NumberFormatException e) {
            return Double.parseDouble(n); // an integer beyond long's range, as Jackson and strtod read it: a double
        }
    }

    private Object literal(String word, Object v) {
        if (!s.startsWith(word, i)) {
            throw error("unexpected character");
        }
        i += word.length();
        return v;
    }

    private void space() {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
    }

    private char peek() {
        if (i >= s.length()) {
            throw error("unexpected end");
        }
        return s.charAt(i);
    }

    private void expect(char c) {
        if (peek() != c) {
            throw error("expected '" + c + "'");
        }
        i++;
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("not JSON: " + what + " at " + i);
    }
}
