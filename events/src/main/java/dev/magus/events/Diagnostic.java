package dev.magus.events;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * One boundary hit, as a value.
 *
 * @param code      the stable code
 * @param message   one human line, without the code
 * @param subject   the path or variable name the diagnostic is about ("" when none);
 *                  never a variable's value
 * @param operation the access concerned
 * @param layer     which layer raised it
 * @param source    where it came from: a file with line and column, a layer name, a stream
 * @param details   further key/value facts, ordered by key (for example the nearest rule,
 *                  the YAML that would allow the access); keys are {@link DetailKey}'s, read
 *                  them with {@link #detail}, {@link #count} and {@link #names}
 */
public record Diagnostic(
        Code code,
        String message,
        String subject,
        Operation operation,
        Layer layer,
        String source,
        Map<String, String> details) {

    public Diagnostic {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(layer, "layer");
        Objects.requireNonNull(source, "source");
        details = java.util.Collections.unmodifiableMap(new TreeMap<>(details));
    }

    public static Diagnostic of(Code code, String message, String subject, Operation operation, Layer layer, String source) {
        return new Diagnostic(code, message, subject, operation, layer, source, Map.of());
    }

    public Severity severity() {
        return code.severity();
    }

    /** A copy with one more detail. */
    public Diagnostic withDetail(String key, String value) {
        Map<String, String> more = new TreeMap<>(details);
        more.put(key, value);
        return new Diagnostic(code, message, subject, operation, layer, source, more);
    }

    /** A copy with one more detail. */
    public Diagnostic withDetail(DetailKey key, String value) {
        return withDetail(key.key(), value);
    }

    /** A copy with a number as a detail, read back with {@link #count}. */
    public Diagnostic withDetail(DetailKey key, long value) {
        return withDetail(key.key(), Long.toString(value));
    }

    /**
     * A copy with a list of names as a detail: comma-separated in the map and the stream, a
     * comma or backslash inside a name escaped with a backslash, so {@link #names} reads
     * every name back as itself.
     */
    public Diagnostic withNames(DetailKey key, List<String> names) {
        StringBuilder b = new StringBuilder();
        for (String n : names) {
            if (b.length() > 0) {
                b.append(',');
            }
            b.append(n.replace("\\", "\\\\").replace(",", "\\,"));
        }
        return withDetail(key.key(), b.toString());
    }

    /** The detail under {@code key}, when there is one. */
    public Optional<String> detail(DetailKey key) {
        return Optional.ofNullable(details.get(key.key()));
    }

    /** Whether there is a detail under {@code key}. */
    public boolean has(DetailKey key) {
        return details.containsKey(key.key());
    }

    /** The number under {@code key}; empty when there is none or it is not a whole number. */
    public OptionalLong count(DetailKey key) {
        String v = details.get(key.key());
        if (v == null) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(v));
        } catch (NumberFormatException notANumber) {
            return OptionalLong.empty();
        }
    }

    /** The names under {@code key} as {@link #withNames} wrote them; empty when there are none. */
    public List<String> names(DetailKey key) {
        String v = details.get(key.key());
        if (v == null || v.isEmpty()) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        StringBuilder name = new StringBuilder();
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c == '\\' && i + 1 < v.length()) {
                name.append(v.charAt(++i));
            } else if (c == ',') {
                out.add(name.toString());
                name.setLength(0);
            } else {
                name.append(c);
            }
        }
        out.add(name.toString());
        return List.copyOf(out);
    }

    /** {@code MGS2001 read denied: /x — outside every read rule} style, one line. */
    public String oneLine() {
        return code.name() + " " + message;
    }
}
