package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.server.client.ServerClient;
import dev.magus.server.protocol.Frame;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A connection is served on the event loop that accepted it (no acceptor thread handing it to
 * a worker: one wake-up less on every forwarded run), and the one loop still carries every
 * run's last bytes before its exit frame when runs overlap.
 */
class AcceptingLoopTest {
    @TempDir
    Path root;
    Fixture f;

    @BeforeEach
    void start() throws Exception {
        f = new Fixture(root);
    }

    @AfterEach
    void stop() {
        f.close();
    }

    @Test
    void aConnectionIsServedOnTheLoopThatAcceptedIt() throws Exception {
        try (ServerClient c = f.client()) {
            c.send(f.run("sh", "-c", "echo ready; sleep 30"));
            StringBuilder out = new StringBuilder();
            while (!out.toString().contains("ready")) {
                if (c.read() instanceof Frame.Stdout o) {
                    out.append(new String(o.bytes(), StandardCharsets.UTF_8));
                }
            }
            assertThat(f.server.connectionsOnAcceptingLoop()).isTrue();
        }
        assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
                .noneMatch(n -> n.startsWith("magus-server-select"));
    }

    @Test
    void overlappingRunsEachGetTheirLastBytesBeforeTheirExit() throws Exception {
        List<CompletableFuture<Fixture.Result>> runs = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            String script = "i=0; while [ $i -lt 200 ]; do echo line-$i; i=$((i+1)); done; printf 'last-" + i + "'; exit " + i;
            runs.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return f.forward(f.run("sh", "-c", script));
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }));
        }
        for (int i = 0; i < runs.size(); i++) {
            Fixture.Result r = runs.get(i).get(60, TimeUnit.SECONDS);
            assertThat(r.status()).isEqualTo(i);
            assertThat(r.out()).startsWith("line-0\n").contains("line-199\n").endsWith("last-" + i);
        }
    }
}
