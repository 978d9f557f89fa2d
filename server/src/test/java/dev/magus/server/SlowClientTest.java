package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.server.client.ServerClient;
import dev.magus.server.protocol.Frame;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client that does not read: its child waits on a full pipe, the server holds no more of its
 * output than the connection's high-water mark, other runs go on meanwhile, and once the
 * client reads, every byte arrives, after a stall longer than the drain grace.
 */
class SlowClientTest {
    static final int LINES = 200_000;

    @TempDir
    Path root;

    @Test
    void aClientThatDoesNotReadBlocksOnlyItsOwnRunAndCostsBoundedMemory() throws Exception {
        try (Fixture f = new Fixture(root)) {
            Path done = f.workspace.resolve("done");
            try (ServerClient slow = f.client()) {
                slow.send(f.run("sh", "-c", "seq 1 " + LINES + "; touch done"));
                // Not reading: meanwhile other runs come and go.
                for (int i = 0; i < 5; i++) {
                    Fixture.Result r = f.forward(f.run("sh", "-c", "echo other " + i));
                    assertThat(r.status()).isZero();
                    assertThat(r.out()).isEqualTo("other " + i + "\n");
                }
                Thread.sleep(3000); // longer than the orchestrator's drain grace
                assertThat(done).as("the child waits on its full pipe").doesNotExist();
                long pending = f.server.pendingBytes();
                assertThat(pending).as("bytes the server holds for the client that does not read")
                        .isLessThanOrEqualTo(MagusServer.HIGH_WATER + 2 * 64 * 1024);

                ByteArrayOutputStream out = new ByteArrayOutputStream();
                Forwarding.Outcome o = null;
                boolean stalledAgain = false;
                while (o == null) {
                    Frame.ToClient frame = slow.read();
                    if (frame instanceof Frame.Stdout s) {
                        out.write(s.bytes());
                    } else if (frame instanceof Frame.Exit x) {
                        o = new Forwarding.Outcome.Exited(x.status(), x.signal());
                    }
                    if (!stalledAgain && Files.exists(done)) {
                        // The child has written everything and ends: what is still in its pipe
                        // and in the server must wait for this client, past the drain grace.
                        stalledAgain = true;
                        Thread.sleep(3000);
                    }
                }
                assertThat(stalledAgain).isTrue();
                assertThat(((Forwarding.Outcome.Exited) o).status()).isZero();
                String expected = IntStream.rangeClosed(1, LINES).mapToObj(Integer::toString)
                        .collect(Collectors.joining("\n", "", "\n"));
                assertThat(out.toString(StandardCharsets.US_ASCII)).isEqualTo(expected);
                assertThat(done).exists();
            }
        }
    }
}
