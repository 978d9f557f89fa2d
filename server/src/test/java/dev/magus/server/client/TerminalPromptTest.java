package dev.magus.server.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The question a forwarded or local {@code --ask} puts, and how its answer is read. */
class TerminalPromptTest {
    @Test
    void theQuestionShowsNamesThatWouldRewriteTheLineAsEscapes() {
        String q = TerminalPrompt.question(7, "ca\u001bt", "/tmp/a\r/b", "/tmp/\u202ec", "read");
        assertThat(q).startsWith("magus: ca\\x1bt (pid 7) asks to read /tmp/a\\r/b (that is /tmp/\\u202ec), which the policy refuses.\n")
                .doesNotContain("\u001b").doesNotContain("\r").doesNotContain("\u202e");
        assertThat(TerminalPrompt.question(7, "", "/x", "/x", "write")).startsWith("magus: pid 7 asks to write /x, which");
    }

    @Test
    void noLineInTimeOrACancelDenies() throws Exception {
        PipedOutputStream keys = new PipedOutputStream();
        ByteArrayOutputStream shown = new ByteArrayOutputStream();
        try (TerminalPrompt p = new TerminalPrompt(new PipedInputStream(keys), new PrintStream(shown, true, StandardCharsets.UTF_8))) {
            assertThat(p.ask("q1? ", 100, () -> false)).isEqualTo("deny");
            AtomicBoolean cancelled = new AtomicBoolean(true);
            assertThat(p.ask("q2? ", 60_000, cancelled::get)).isEqualTo("deny");
            keys.write("r\n".getBytes(StandardCharsets.UTF_8));
            keys.flush();
            assertThat(p.ask("q3? ", 60_000, () -> false)).isEqualTo("run");
        }
        assertThat(shown.toString(StandardCharsets.UTF_8)).isEqualTo("q1? (no answer: denied)\nq2? (no answer: denied)\nq3? ");
    }

    @Test
    void aTypedLineIsOnceRunOrElseDeny() throws Exception {
        ByteArrayOutputStream shown = new ByteArrayOutputStream();
        try (TerminalPrompt p = new TerminalPrompt(new ByteArrayInputStream(" O\r\nyes\n".getBytes(StandardCharsets.UTF_8)),
                new PrintStream(shown, true, StandardCharsets.UTF_8))) {
            assertThat(p.ask("a? ", 5_000, () -> false)).isEqualTo("once");
            assertThat(p.ask("b? ", 5_000, () -> false)).isEqualTo("deny");
        }
        assertThat(shown.toString(StandardCharsets.UTF_8)).isEqualTo("a? b? magus: denied\n");
    }
}
