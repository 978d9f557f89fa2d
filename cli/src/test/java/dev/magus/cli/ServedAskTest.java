package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.server.RunGrammar;
import dev.magus.server.ServedRun;
import dev.magus.server.protocol.Frame;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A forwarded {@code --ask} is the server's run, parsed by the command line's own model: it asks
 * the client, which asks on its terminal. Without a terminal at the client it is the usage error
 * a local run says; a client whose standard input is that terminal keeps it (its lines are the answers).
 */
class ServedAskTest {
    @TempDir
    Path cwd;
    private final dev.magus.orchestrator.run.RunServices services = new dev.magus.orchestrator.run.RunServices();

    @org.junit.jupiter.api.AfterEach
    void closeServices() {
        services.close();
    }

    private RunGrammar.Parsed parse(boolean stdinTerminal, boolean tty, String... words) {
        return new ServedCommandLine(services).parse(new Frame.Command(List.of(words), cwd.toString(),
                Map.of("HOME", cwd.toString(), "PATH", "/usr/bin:/bin"), false, stdinTerminal, tty));
    }

    @Test
    void askIsServedWithItsTimeout() {
        RunGrammar.Parsed p = parse(false, true, "run", "--ask", "--ask-timeout", "5", "--", "cat", "x");
        assertThat(p).isInstanceOf(RunGrammar.Serve.class);
        ServedRun s = ((RunGrammar.Serve) p).run();
        assertThat(s.ask()).contains(Duration.ofSeconds(5));
        assertThat(s.stdin()).isTrue();
        ServedRun plain = ((RunGrammar.Serve) parse(false, true, "run", "--ask", "--", "cat", "x")).run();
        assertThat(plain.ask()).contains(dev.magus.landlock.supervise.Approval.DEFAULT_TIMEOUT);
        assertThat(((RunGrammar.Serve) parse(false, true, "run", "--", "cat", "x")).run().ask()).isEmpty();
    }

    @Test
    void aTerminalOnTheClientsStdinStaysTheAnswersOnly() {
        ServedRun s = ((RunGrammar.Serve) parse(true, true, "run", "--ask", "--", "cat", "x")).run();
        assertThat(s.stdin()).isFalse();
        assertThat(((RunGrammar.Serve) parse(true, true, "run", "--", "cat", "x")).run().stdin()).isTrue();
    }

    @Test
    void withoutATerminalAtTheClientAskIsAUsageError() {
        RunGrammar.Parsed p = parse(false, false, "run", "-v", "--ask", "--", "cat", "x");
        assertThat(p).isInstanceOf(RunGrammar.Answer.class);
        RunGrammar.Answer a = (RunGrammar.Answer) p;
        assertThat(a.status()).isEqualTo(125);
        assertThat(new String(a.err(), StandardCharsets.UTF_8)).contains("--ask needs a terminal to ask on")
                .doesNotContain("served by this process only");
    }

    @Test
    void anAskTimeoutWithoutAskIsAUsageErrorToo() {
        RunGrammar.Parsed p = parse(false, true, "run", "--ask-timeout", "5", "--", "cat", "x");
        assertThat(p).isInstanceOf(RunGrammar.Answer.class);
        assertThat(((RunGrammar.Answer) p).status()).isEqualTo(125);
        assertThat(new String(((RunGrammar.Answer) p).err(), StandardCharsets.UTF_8)).contains("--ask-timeout is for --ask");
    }
}
