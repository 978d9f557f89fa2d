package dev.magus.events;

import java.util.Map;
import java.util.Objects;
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
 *                  the YAML that would allow the access)
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

    /** {@code MGS2001 read denied: /x — outside every read rule} style, one line. */
    public String oneLine() {
        return code.name() + " " + message;
    }
}
