package dev.magus.telemetry.log;

import static dev.magus.telemetry.TestEvents.T0;
import static dev.magus.telemetry.TestEvents.diag;
import static dev.magus.telemetry.TestEvents.exited;
import static dev.magus.telemetry.TestEvents.out;
import static dev.magus.telemetry.TestEvents.started;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Mode;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.RunEvent;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.event.Level;

class DiagnosticLogSinkTest {
    // The mapping the issue asks for, written out rather than derived from the code under test.
    private static final Map<String, Level> LEVELS = Map.of(
            "ERROR", Level.ERROR, "WARNING", Level.WARN, "INFO", Level.INFO, "HINT", Level.INFO, "DEBUG", Level.DEBUG);

    private final RecordingLogger logger = new RecordingLogger(Level.TRACE);
    private final DiagnosticLogSink sink = new DiagnosticLogSink(logger);

    @ParameterizedTest
    @EnumSource(Code.class)
    void oneLinePerDiagnosticAtTheLevelOfItsSeverity(Code code) {
        sink.accept(diag("r1", code, Layer.POLICY, "subject"));

        assertThat(logger.entries).hasSize(1);
        assertThat(logger.entries.get(0).level()).isEqualTo(LEVELS.get(code.severity().name()));
        assertThat(logger.entries.get(0).message()).startsWith("code=" + code.name() + " layer=policy op=");
    }

    @Test
    void theLineIsStructured() {
        sink.accept(new RunEvent.Diag("r1", T0, Diagnostic.of(Code.MGS2001, "read denied: /x — outside every read rule",
                "/x", Operation.READ, Layer.KERNEL, "stderr")));

        assertThat(logger.entries).singleElement().extracting(RecordingLogger.Entry::message).isEqualTo(
                "code=MGS2001 layer=kernel op=read subject=/x source=stderr msg=\"read denied: /x — outside every read rule\" run=r1");
    }

    @Test
    void awkwardValuesAreQuotedAndStayOnOneLine() {
        sink.accept(new RunEvent.Diag("r2", T0, Diagnostic.of(Code.MGS2002, "two\nlines with \"quotes\" and {}",
                "/w s/a=b\u001b[31m", Operation.WRITE, Layer.BINDING, "")));

        String line = logger.entries.get(0).message();
        assertThat(line).doesNotContain("\n").doesNotContain("\u001b")
                .isEqualTo("code=MGS2002 layer=binding op=write subject=\"/w s/a=b\\u001b[31m\" source=\"\""
                        + " msg=\"two\\nlines with \\\"quotes\\\" and {}\" run=r2");
    }

    @Test
    void otherEventsAreNotLogged() {
        sink.accept(started("r", Mode.REQUIRED));
        sink.accept(out("r", "hello"));
        sink.accept(exited("r", 0, 0));

        assertThat(logger.entries).isEmpty();
    }

    @Test
    void aDisabledLevelIsSkipped() {
        RecordingLogger infoOnly = new RecordingLogger(Level.INFO);
        DiagnosticLogSink quiet = new DiagnosticLogSink(infoOnly);
        quiet.accept(diag("r", Code.MGS2008, Layer.POLICY, "MAGUS_PROC_TOKEN"));
        quiet.accept(diag("r", Code.MGS2006, Layer.POLICY, "MISE_DATA_DIR"));

        assertThat(infoOnly.entries).extracting(RecordingLogger.Entry::level).containsExactly(Level.INFO);
    }

    @Test
    void throughSlf4jSimpleTheLineReachesStandardError() {
        PrintStream saved = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            new DiagnosticLogSink().accept(diag("r9", Code.MGS2001, Layer.KERNEL, "/home/u/.aws/credentials"));
            new DiagnosticLogSink().accept(diag("r9", Code.MGS2005, Layer.POLICY, ""));
        } finally {
            System.setErr(saved);
        }
        String text = captured.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("ERROR " + DiagnosticLogSink.LOGGER_NAME
                + " - code=MGS2001 layer=kernel op=read subject=/home/u/.aws/credentials source=stderr");
        assertThat(text).contains("WARN " + DiagnosticLogSink.LOGGER_NAME + " - code=MGS2005 layer=policy op=none subject=\"\"");
    }
}
