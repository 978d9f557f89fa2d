package dev.magus.telemetry.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.RunEvent;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/** Whatever a path or message holds, the log line stays one line and parses back to the same values. */
class LogLinePropertiesTest {

    @Property(tries = 500)
    void aLineRoundTripsThroughLogfmt(@ForAll String subject, @ForAll String message, @ForAll String source) {
        RunEvent.Diag event = new RunEvent.Diag("r-1", Instant.EPOCH,
                Diagnostic.of(Code.MGS2002, message, subject, Operation.WRITE, Layer.BINDING, source));

        String line = DiagnosticLogSink.line(event);

        assertThat(line.chars().noneMatch(LogLinePropertiesTest::invisible)).as(line).isTrue();
        Map<String, String> fields = parse(line);
        assertThat(fields.keySet()).containsExactly("code", "layer", "op", "subject", "source", "msg", "run");
        assertThat(fields).containsEntry("code", "MGS2002").containsEntry("layer", "binding").containsEntry("op", "write")
                .containsEntry("subject", subject).containsEntry("source", source).containsEntry("msg", message)
                .containsEntry("run", "r-1");
    }

    private static boolean invisible(int c) {
        int type = Character.getType(c);
        return Character.isISOControl(c) || type == Character.LINE_SEPARATOR || type == Character.PARAGRAPH_SEPARATOR
                || type == Character.FORMAT;
    }

    /** A strict logfmt reader: key=bare or key="escaped", separated by one space. */
    private static Map<String, String> parse(String line) {
        Map<String, String> out = new LinkedHashMap<>();
        int i = 0;
        while (i < line.length()) {
            int eq = line.indexOf('=', i);
            String key = line.substring(i, eq);
            i = eq + 1;
            StringBuilder value = new StringBuilder();
            if (i < line.length() && line.charAt(i) == '"') {
                i++;
                while (line.charAt(i) != '"') {
                    char c = line.charAt(i++);
                    if (c == '\\') {
                        char e = line.charAt(i++);
                        switch (e) {
                            case 'n' -> value.append('\n');
                            case 'r' -> value.append('\r');
                            case 't' -> value.append('\t');
                            case 'u' -> {
                                value.append((char) Integer.parseInt(line.substring(i, i + 4), 16));
                                i += 4;
                            }
                            default -> value.append(e);
                        }
                    } else {
                        value.append(c);
                    }
                }
                i++;
            } else {
                while (i < line.length() && line.charAt(i) != ' ') {
                    value.append(line.charAt(i++));
                }
            }
            out.put(key, value.toString());
            if (i < line.length()) {
                assertThat(line.charAt(i)).isEqualTo(' ');
                i++;
            }
        }
        return out;
    }
}
