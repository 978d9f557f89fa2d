package dev.magus.telemetry.ndjson;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.magus.events.Diagnostic;
import dev.magus.events.RunEvent;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Writes each {@link RunEvent} as one JSON object on one line (NDJSON), schema version
 * {@value #SCHEMA_VERSION}, documented field by field in {@code telemetry/README.md}.
 * Each line is written whole and flushed before the next, under one lock, so several runs
 * may share a sink and a reader tailing the file never sees half a line. The sink does not
 * own the stream: closing it is the caller's job. A write failure is thrown as
 * {@link UncheckedIOException}, never swallowed.
 */
public final class NdjsonSink implements Consumer<RunEvent> {
    /** The value of every line's {@code v}; bumped only when a field changes meaning or goes away. */
    public static final int SCHEMA_VERSION = 1;

    private static final JsonFactory FACTORY = new JsonFactory();

    private final Writer out;
    private final Object lock = new Object();

    /** Writes UTF-8 to {@code out}. */
    public NdjsonSink(OutputStream out) {
        this.out = new BufferedWriter(new OutputStreamWriter(Objects.requireNonNull(out, "out"), StandardCharsets.UTF_8));
    }

    @Override
    public void accept(RunEvent event) {
        String line = line(event);
        synchronized (lock) {
            try {
                out.write(line);
                out.write('\n');
                out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write NDJSON event of run " + event.runId(), e);
            }
        }
    }

    /** The line for {@code event}, without its newline; Jackson escapes every newline inside a value. */
    public static String line(RunEvent event) {
        java.io.StringWriter sw = new java.io.StringWriter(160);
        try (JsonGenerator g = FACTORY.createGenerator(sw)) {
            write(event, g);
        } catch (IOException e) {
            // Strings and numbers into memory always serialise; this would be a Jackson bug.
            throw new IllegalStateException(e);
        }
        return sw.toString();
    }

    /**
     * Writes {@code event}'s JSON object to {@code g}, fields in schema order, with no tree in
     * between: the server's frames and the NDJSON lines are written this way.
     */
    public static void write(RunEvent event, JsonGenerator g) throws IOException {
        g.writeStartObject();
        g.writeNumberField("v", SCHEMA_VERSION);
        g.writeStringField("type", type(event));
        g.writeStringField("run", event.runId());
        g.writeStringField("at", InstantText.of(event.at()));
        if (event instanceof RunEvent.Started s) {
            g.writeArrayFieldStart("argv");
            for (String a : s.argv()) {
                g.writeString(a);
            }
            g.writeEndArray();
            g.writeStringField("mode", s.mode().spelling());
            g.writeNumberField("pid", s.pid());
        } else if (event instanceof RunEvent.Output o) {
            g.writeStringField("stream", o.stream().name().toLowerCase(Locale.ROOT));
            g.writeStringField("line", o.line());
        } else if (event instanceof RunEvent.Diag diag) {
            Diagnostic d = diag.diagnostic();
            g.writeStringField("code", d.code().name());
            g.writeStringField("severity", d.severity().name().toLowerCase(Locale.ROOT));
            g.writeStringField("layer", d.layer().label());
            g.writeStringField("op", d.operation().label());
            g.writeStringField("subject", d.subject());
            g.writeStringField("source", d.source());
            g.writeStringField("message", d.message());
            g.writeObjectFieldStart("details");
            // A tree keeps the last value of a repeated name in the place of its first; a map has each name once.
            for (Map.Entry<String, String> e : d.details().entrySet()) {
                g.writeStringField(e.getKey(), e.getValue());
            }
            g.writeEndObject();
        } else if (event instanceof RunEvent.Exited x) {
            g.writeNumberField("status", x.status());
            g.writeNumberField("signal", x.signal());
            g.writeNumberField("duration_ms", x.duration().toMillis());
        }
        g.writeEndObject();
    }

    /** The {@code type} field: started, output, diagnostic or exited. */
    public static String type(RunEvent event) {
        if (event instanceof RunEvent.Started) {
            return "started";
        } else if (event instanceof RunEvent.Output) {
            return "output";
        } else if (event instanceof RunEvent.Diag) {
            return "diagnostic";
        } else if (event instanceof RunEvent.Exited) {
            return "exited";
        }
        throw new IllegalArgumentException("unknown run event " + event.getClass().getName());
    }
}
