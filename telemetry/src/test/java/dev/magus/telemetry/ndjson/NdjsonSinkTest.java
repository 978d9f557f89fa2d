package dev.magus.telemetry.ndjson;

import static dev.magus.telemetry.TestEvents.T0;
import static dev.magus.telemetry.TestEvents.exited;
import static dev.magus.telemetry.TestEvents.out;
import static dev.magus.telemetry.TestEvents.started;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.magus.events.Code;
import dev.magus.events.Mode;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.RunEvent;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class NdjsonSinkTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final NdjsonSink sink = new NdjsonSink(bytes);

    @Test
    void startedLine() throws IOException {
        sink.accept(new RunEvent.Started("r-1", T0, List.of("npm", "run", "a b"), Mode.REQUIRED, 4242));

        JsonNode n = onlyLine();
        assertThat(fieldNames(n)).containsExactly("v", "type", "run", "at", "argv", "mode", "pid");
        assertThat(n.get("v").asInt()).isEqualTo(1);
        assertThat(n.get("type").asText()).isEqualTo("started");
        assertThat(n.get("run").asText()).isEqualTo("r-1");
        assertThat(Instant.parse(n.get("at").asText())).isEqualTo(T0);
        assertThat(n.get("argv")).extracting(JsonNode::asText).containsExactly("npm", "run", "a b");
        assertThat(n.get("mode").asText()).isEqualTo("required");
        assertThat(n.get("pid").asLong()).isEqualTo(4242);
    }

    @Test
    void outputLine() throws IOException {
        sink.accept(new RunEvent.Output("r-1", T0, RunEvent.Stream.STDERR, "warn: \"x\"\ttab \u00e9"));

        JsonNode n = onlyLine();
        assertThat(fieldNames(n)).containsExactly("v", "type", "run", "at", "stream", "line");
        assertThat(n.get("type").asText()).isEqualTo("output");
        assertThat(n.get("stream").asText()).isEqualTo("stderr");
        assertThat(n.get("line").asText()).isEqualTo("warn: \"x\"\ttab \u00e9");
    }

    @Test
    void diagnosticLine() throws IOException {
        Diagnostic d = Diagnostic.of(Code.MGS2001, "read denied: /home/u/.npmrc", "/home/u/.npmrc", Operation.READ,
                Layer.KERNEL, "stderr").withDetail("yaml", "sandbox:\n  allow:\n    - path: ~/.npmrc\n").withDetail("abi", "7");
        sink.accept(new RunEvent.Diag("r-1", T0, d));

        JsonNode n = onlyLine();
        assertThat(fieldNames(n)).containsExactly(
                "v", "type", "run", "at", "code", "severity", "layer", "op", "subject", "source", "message", "details");
        assertThat(n.get("type").asText()).isEqualTo("diagnostic");
        assertThat(n.get("code").asText()).isEqualTo("MGS2001");
        assertThat(n.get("severity").asText()).isEqualTo("error");
        assertThat(n.get("layer").asText()).isEqualTo("kernel");
        assertThat(n.get("op").asText()).isEqualTo("read");
        assertThat(n.get("subject").asText()).isEqualTo("/home/u/.npmrc");
        assertThat(n.get("source").asText()).isEqualTo("stderr");
        assertThat(n.get("message").asText()).isEqualTo("read denied: /home/u/.npmrc");
        assertThat(fieldNames(n.get("details"))).containsExactly("abi", "yaml");
        assertThat(n.get("details").get("yaml").asText()).isEqualTo("sandbox:\n  allow:\n    - path: ~/.npmrc\n");
    }

    @Test
    void exitedLine() throws IOException {
        sink.accept(new RunEvent.Exited("r-1", T0, 137, 9, Duration.ofMillis(2500)));

        JsonNode n = onlyLine();
        assertThat(fieldNames(n)).containsExactly("v", "type", "run", "at", "status", "signal", "duration_ms");
        assertThat(n.get("type").asText()).isEqualTo("exited");
        assertThat(n.get("status").asInt()).isEqualTo(137);
        assertThat(n.get("signal").asInt()).isEqualTo(9);
        assertThat(n.get("duration_ms").asLong()).isEqualTo(2500);
    }

    @Test
    void eachEventIsOneFlushedLine() throws IOException {
        List<RunEvent> run = List.of(started("r", Mode.OFF), out("r", "multi\nline"),
                new RunEvent.Diag("r", T0, Diagnostic.of(Code.MGS2003, "4 variables dropped", "", Operation.NONE, Layer.POLICY, "env")),
                exited("r", 0, 0));
        List<String> types = new ArrayList<>();
        for (RunEvent e : run) {
            sink.accept(e);
            // Flushed per line: what was accepted is already in the stream, ending in a newline.
            String text = bytes.toString(StandardCharsets.UTF_8);
            assertThat(text).endsWith("\n");
            String[] lines = text.split("\n");
            types.add(JSON.readTree(lines[lines.length - 1]).get("type").asText());
        }
        assertThat(types).containsExactly("started", "output", "diagnostic", "exited");
        assertThat(bytes.toString(StandardCharsets.UTF_8).split("\n")).hasSize(4);
    }

    @Test
    void concurrentWritersNeverInterleaveLines() throws Exception {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        NdjsonSink shared = new NdjsonSink(text);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        for (int t = 0; t < 8; t++) {
            String run = "run-" + t;
            pool.submit(() -> {
                for (int i = 0; i < 500; i++) {
                    shared.accept(out(run, "line " + i + " " + "x".repeat(i % 97)));
                }
            });
        }
        pool.shutdown();
        assertThat(pool.awaitTermination(60, TimeUnit.SECONDS)).isTrue();

        Map<String, Integer> next = new HashMap<>();
        String[] lines = text.toString(StandardCharsets.UTF_8).split("\n");
        assertThat(lines).hasSize(8 * 500);
        for (String line : lines) {
            JsonNode n = JSON.readTree(line);
            int i = next.merge(n.get("run").asText(), 1, Integer::sum) - 1;
            assertThat(n.get("line").asText()).startsWith("line " + i + " ");
        }
    }

    @Test
    void aWriteFailureIsThrownNotSwallowed() {
        NdjsonSink broken = new NdjsonSink(new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("disk full");
            }
        });
        assertThatThrownBy(() -> broken.accept(out("r", "x"))).isInstanceOf(UncheckedIOException.class)
                .hasRootCauseMessage("disk full");
    }

    private JsonNode onlyLine() throws IOException {
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertThat(text).endsWith("\n");
        assertThat(text.split("\n")).hasSize(1);
        return JSON.readTree(text);
    }

    private static List<String> fieldNames(JsonNode n) {
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            names.add(it.next());
        }
        return names;
    }

    /**
     * The line written straight from the event ({@link NdjsonSink#write}) has exactly the bytes of
     * {@link #toJson}'s tree serialised, for every kind of event and the characters JSON
     * escapes: the server's frames and the NDJSON lines are written that way and must not change.
     */
    @Test
    void theStreamedLineIsTheTreeSerialised() throws IOException {
        String odd = "q\"b\\s\n\r\t\u0000\u001f\u007f \u00e9 \u2028 \ud83d\ude00 \ud800 </script>";
        Diagnostic d = Diagnostic.of(Code.MGS2001, "read denied: " + odd, "/home/u/" + odd, Operation.READ,
                Layer.KERNEL, "stderr").withDetail("yaml", "sandbox:\n  allow:\n    - path: ~/.npmrc\n")
                .withDetail("abi", "7").withDetail("odd " + odd, odd);
        List<RunEvent> events = List.of(
                new RunEvent.Started("r-1", T0, List.of("npm", "run", odd, ""), Mode.REQUIRED, 4242),
                new RunEvent.Started("r-1", T0.plusNanos(1), List.of(), Mode.OFF, Long.MAX_VALUE),
                new RunEvent.Output("r-1", T0.plusNanos(120_000), RunEvent.Stream.STDOUT, odd),
                new RunEvent.Output("r-1", T0.plusMillis(7), RunEvent.Stream.STDERR, ""),
                new RunEvent.Diag("r-1", T0.plusMillis(2), d),
                new RunEvent.Diag("r-1", T0, Diagnostic.of(Code.MGS2008, "withheld X", "X", Operation.NONE,
                        Layer.POLICY, "childEnv")),
                new RunEvent.Exited("r-1", T0.plusSeconds(3), 0, 0, Duration.ofMillis(1500)),
                new RunEvent.Exited("r-1", T0.plusSeconds(3), -1, 9, Duration.ofNanos(-5)),
                new RunEvent.Exited("r-\u00e9", T0.plusSeconds(3), 137, 9, Duration.ofDays(400)));
        for (RunEvent e : events) {
            String tree = JSON.writeValueAsString(toJson(e));
            assertThat(NdjsonSink.line(e)).isEqualTo(tree);
            java.io.StringWriter w = new java.io.StringWriter();
            try (com.fasterxml.jackson.core.JsonGenerator g = JSON.getFactory().createGenerator(w)) {
                NdjsonSink.write(e, g);
            }
            assertThat(w.toString()).isEqualTo(tree);
            ByteArrayOutputStream utf8 = new ByteArrayOutputStream();
            try (com.fasterxml.jackson.core.JsonGenerator g = JSON.getFactory().createGenerator(utf8)) {
                NdjsonSink.write(e, g);
            }
            assertThat(utf8.toByteArray()).isEqualTo(JSON.writeValueAsBytes(toJson(e)));
        }
    }

    /** The event's JSON object built as a tree, fields in schema order: the reference the streamed line must equal. */
    private static ObjectNode toJson(RunEvent event) {
        ObjectNode node = JSON.createObjectNode();
        node.put("v", NdjsonSink.SCHEMA_VERSION);
        node.put("type", NdjsonSink.type(event));
        node.put("run", event.runId());
        node.put("at", InstantText.of(event.at()));
        if (event instanceof RunEvent.Started s) {
            s.argv().forEach(node.putArray("argv")::add);
            node.put("mode", s.mode().spelling());
            node.put("pid", s.pid());
        } else if (event instanceof RunEvent.Output o) {
            node.put("stream", o.stream().name().toLowerCase(Locale.ROOT));
            node.put("line", o.line());
        } else if (event instanceof RunEvent.Diag diag) {
            Diagnostic d = diag.diagnostic();
            node.put("code", d.code().name());
            node.put("severity", d.severity().name().toLowerCase(Locale.ROOT));
            node.put("layer", d.layer().label());
            node.put("op", d.operation().label());
            node.put("subject", d.subject());
            node.put("source", d.source());
            node.put("message", d.message());
            ObjectNode details = node.putObject("details");
            for (Map.Entry<String, String> e : d.details().entrySet()) {
                details.put(e.getKey(), e.getValue());
            }
        } else if (event instanceof RunEvent.Exited x) {
            node.put("status", x.status());
            node.put("signal", x.signal());
            node.put("duration_ms", x.duration().toMillis());
        }
        return node;
    }
}
