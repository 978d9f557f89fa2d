package dev.magus.cli.ask;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.supervise.Ask;
import dev.magus.landlock.supervise.Decision;
import dev.magus.server.client.TerminalPrompt;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TerminalApproverTest {
    static final Ask ASK = new Ask(42, "cat", "/home/u/link/id_rsa", "/home/u/.ssh/id_rsa", Ask.Access.READ);

    @Test
    void theQuestionNamesTheProgramThePathAndTheAccess() {
        assertThat(TerminalApprover.question(ASK))
                .contains("cat (pid 42) asks to read /home/u/link/id_rsa (that is /home/u/.ssh/id_rsa)")
                .contains("[o] allow once  [r] allow for this run  [d] deny");
    }

    @Test
    void anAnswerIsOnceRunOrElseDeny() {
        assertThat(TerminalApprover.decision("o")).isEqualTo(Decision.ALLOW_ONCE);
        assertThat(TerminalApprover.decision(" R\r")).isEqualTo(Decision.ALLOW_FOR_RUN);
        assertThat(TerminalApprover.decision("run")).isEqualTo(Decision.ALLOW_FOR_RUN);
        assertThat(TerminalApprover.decision("")).isEqualTo(Decision.DENY);
        assertThat(TerminalApprover.decision("yes")).isEqualTo(Decision.DENY);
    }

    @Test
    void theTypedLineDecides() {
        ByteArrayOutputStream shown = new ByteArrayOutputStream();
        try (TerminalApprover a = new TerminalApprover(new TerminalPrompt(new ByteArrayInputStream("r\n".getBytes(StandardCharsets.UTF_8)),
                new PrintStream(shown, true, StandardCharsets.UTF_8)))) {
            assertThat(a.ask(ASK).block(Duration.ofSeconds(5))).isEqualTo(Decision.ALLOW_FOR_RUN);
        }
        assertThat(shown.toString(StandardCharsets.UTF_8)).contains("asks to read");
    }

    @Test
    void anAskWhoseTimeRanOutLeavesTheNextLineToTheNextAsk() throws Exception {
        PipedOutputStream keys = new PipedOutputStream();
        ByteArrayOutputStream shown = new ByteArrayOutputStream();
        try (TerminalApprover a = new TerminalApprover(new TerminalPrompt(new PipedInputStream(keys),
                new PrintStream(shown, true, StandardCharsets.UTF_8)))) {
            Decision late = a.ask(ASK).timeout(Duration.ofMillis(200)).onErrorReturn(Decision.DENY)
                    .block(Duration.ofSeconds(5));
            assertThat(late).isEqualTo(Decision.DENY);
            keys.write("o\n".getBytes(StandardCharsets.UTF_8));
            keys.flush();
            assertThat(a.ask(ASK).block(Duration.ofSeconds(5))).isEqualTo(Decision.ALLOW_ONCE);
        }
        assertThat(shown.toString(StandardCharsets.UTF_8)).contains("(no answer: denied)");
    }

    @Test
    void noTerminalIsNoApprover(@TempDir Path dir) {
        assertThat(TerminalApprover.open(dir.resolve("no-tty"))).isEmpty();
    }
}
