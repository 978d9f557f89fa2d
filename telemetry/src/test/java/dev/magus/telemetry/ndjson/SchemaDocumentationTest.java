package dev.magus.telemetry.ndjson;

import static dev.magus.telemetry.TestEvents.T0;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.magus.events.Code;
import dev.magus.events.Mode;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.RunEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** telemetry/README.md documents the schema; it must say what the sink writes. */
class SchemaDocumentationTest {
    private static final Pattern FIELD_ROW = Pattern.compile("^\\| `([a-z_]+)` \\|", Pattern.MULTILINE);

    private static String readme() throws IOException {
        // Surefire runs in the module directory.
        return Files.readString(Path.of("README.md"));
    }

    @Test
    void everyTypeDocumentsExactlyTheFieldsWritten() throws IOException {
        String readme = readme();
        List<String> common = tableAfter(readme, "Every line:");
        assertThat(common).containsExactly("v", "type", "run", "at");

        Diagnostic d = Diagnostic.of(Code.MGS2001, "m", "/x", Operation.READ, Layer.KERNEL, "stderr");
        List<RunEvent> events = List.of(new RunEvent.Started("r", T0, List.of("a"), Mode.OFF, 1),
                new RunEvent.Output("r", T0, RunEvent.Stream.STDOUT, "l"), new RunEvent.Diag("r", T0, d),
                new RunEvent.Exited("r", T0, 0, 0, Duration.ZERO));
        for (RunEvent e : events) {
            String type = NdjsonSink.type(e);
            List<String> documented = new ArrayList<>(common);
            documented.addAll(tableAfter(readme, "`" + type + "` —"));
            assertThat(fieldNames(NdjsonSink.line(e))).as(type).isEqualTo(documented);
        }
    }

    @Test
    void theExampleIsWhatTheSinkWrites() throws IOException {
        String readme = readme();
        List<RunEvent> events = List.of(
                new RunEvent.Started("r-1", T0, List.of("npm", "install"), Mode.REQUIRED, 4242),
                new RunEvent.Diag("r-1", T0.plusMillis(2), Diagnostic.of(Code.MGS2001, "read denied: /home/u/.npmrc",
                        "/home/u/.npmrc", Operation.READ, Layer.KERNEL, "stderr")),
                new RunEvent.Exited("r-1", T0.plusSeconds(3), 0, 0, Duration.ofMillis(1500)));
        for (RunEvent e : events) {
            assertThat(readme).contains("\n" + NdjsonSink.line(e) + "\n");
        }
    }

    private static List<String> tableAfter(String readme, String heading) {
        int start = readme.indexOf(heading);
        assertThat(start).as("README has " + heading).isNotNegative();
        int tableStart = readme.indexOf("| field |", start);
        int end = readme.indexOf("\n\n", tableStart);
        Matcher m = FIELD_ROW.matcher(readme.substring(tableStart, end));
        List<String> names = new ArrayList<>();
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    private static List<String> fieldNames(String line) throws IOException {
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = new ObjectMapper().readTree(line).fieldNames(); it.hasNext(); ) {
            names.add(it.next());
        }
        return names;
    }
}
