package dev.magus.orchestrator;

import static dev.magus.orchestrator.TestHost.DEADLINE;
import static dev.magus.orchestrator.TestHost.events;
import static dev.magus.orchestrator.TestHost.lines;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.RunEvent;
import dev.magus.orchestrator.run.Passthrough;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.Submission;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A child's output passed through byte for byte, next to the line events. */
class PassthroughTest {
    @TempDir
    Path root;
    TestHost t;

    @BeforeEach
    void setUp() {
        TestHost.assumeLandlock();
        t = new TestHost(root).mode("required");
    }

    /** Every byte value, a CRLF, invalid UTF-8, and no final newline. */
    private static byte[] binary() {
        byte[] b = new byte[256 + 6];
        for (int i = 0; i < 256; i++) {
            b[i] = (byte) i;
        }
        byte[] tail = {'\r', '\n', (byte) 0xc3, (byte) 0x28, 'e', 'n'};
        System.arraycopy(tail, 0, b, 256, tail.length);
        return b;
    }

    @Test
    void binaryOutputPassesThroughUnchangedAndLinesStillStream() throws IOException {
        byte[] data = binary();
        Files.write(t.workspace.resolve("blob"), data);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Run run = t.orchestrator().submit(Submission.of(RunRequest.builder(t.workspace, "sh", "-c", "cat blob; printf 'warn' >&2").build())
                .withPassthrough(Passthrough.of(out, err)));
        assertThat(run.result().block(DEADLINE).status()).isZero();
        assertThat(out.toByteArray()).isEqualTo(data);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("warn");
        // The events are still there, decoded and split.
        assertThat(lines(events(run), RunEvent.Stream.STDOUT)).hasSize(3).last().isEqualTo("\uFFFD(en");
        assertThat(lines(events(run), RunEvent.Stream.STDERR)).containsExactly("warn");
    }

    @Test
    void aFailingPassthroughNeitherBlocksTheChildNorLosesEvents() {
        OutputStream broken = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("reader went away");
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                throw new IOException("reader went away");
            }
        };
        Run run = t.orchestrator().submit(Submission.of(RunRequest.builder(t.workspace, "sh", "-c", "seq 1 100000").build())
                .withPassthrough(Passthrough.of(broken, broken)));
        // Subscribed while the run goes, as every caller does: a later one sees only the journal's window.
        var events = run.events().collectList().toFuture();
        assertThat(run.result().block(DEADLINE).status()).isZero();
        assertThat(lines(events.join(), RunEvent.Stream.STDOUT)).hasSize(100000).endsWith("100000");
    }

    @Test
    void magusOwnMessagesReachThePassthroughToo() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Run run = t.orchestrator().submit(Submission.of(RunRequest.builder(t.workspace, "magus-test-no-such-command").build())
                .withPassthrough(Passthrough.of(OutputStream.nullOutputStream(), err)));
        assertThat(run.result().block(DEADLINE).status()).isEqualTo(127);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("magus: magus-test-no-such-command: command not found\n");
        assertThat(lines(events(run), RunEvent.Stream.STDERR))
                .containsExactly("magus: magus-test-no-such-command: command not found");
    }
}
