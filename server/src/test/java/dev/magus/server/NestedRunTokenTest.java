package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.server.client.ServerClient;
import dev.magus.server.protocol.Frame;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A forwarded run's recursive magus says hello with a token of that run, never the server's:
 * with the server's token it could have the server start anything, outside the domain of the
 * run it comes from ({@code magus run -- magus run --allow ~/.ssh -- cat ~/.ssh/id_rsa} read
 * the key). A run's token is declined for a run (the client runs it itself, inside the run it
 * comes from), good for nothing else, and dies with its run.
 */
class NestedRunTokenTest {
    @TempDir
    Path root;

    @Test
    void aRunsTokenOnlyGetsItsRunsDeclinedAndDiesWithTheRun() throws Exception {
        Path launcher = Files.createDirectories(root.resolve("bin")).resolve("magus");
        Files.writeString(launcher, "#!/bin/sh\nprintf '%s\\n' \"$MAGUS_PROC_TOKEN\"\n"
                + "while [ ! -e \"$1\" ]; do sleep 0.05; done\n");
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwx------"));
        try (Fixture f = new Fixture(root, Optional.of(launcher.toRealPath()))) {
            Path go = root.resolve("go");
            ByteArrayOutputStream seen = new ByteArrayOutputStream();
            CountDownLatch line = new CountDownLatch(1);
            OutputStream out = new OutputStream() {
                @Override
                public synchronized void write(int b) {
                    seen.write(b);
                    if (b == '\n') {
                        line.countDown();
                    }
                }
            };
            ServerClient outer = f.client();
            CompletableFuture<Forwarding.Outcome> outerRun = CompletableFuture.supplyAsync(() -> {
                try {
                    return Forwarding.forward(outer, f.run(launcher.toRealPath().toString(), go.toString()), null, out,
                            OutputStream.nullOutputStream());
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(line.await(30, TimeUnit.SECONDS)).as("the recursive magus said its token").isTrue();
            String token;
            synchronized (out) {
                token = seen.toString(StandardCharsets.UTF_8).trim();
            }
            assertThat(token).isNotEmpty().isNotEqualTo(f.server.token());

            Path marker = root.resolve("ran");
            try (ServerClient nested = ServerClient.connect(f.dir.socket(), token)) {
                Forwarding.Outcome o = Forwarding.forward(nested, f.run(f.env, List.of("--allow", root.toString()), "touch",
                        marker.toString()), null, OutputStream.nullOutputStream(), OutputStream.nullOutputStream());
                assertThat(o).isInstanceOfSatisfying(Forwarding.Outcome.Declined.class,
                        d -> assertThat(d.frame().message()).as("no line: it runs where it came from").isEmpty());
            }
            assertThat(marker).as("the server started nothing for it").doesNotExist();
            try (ServerClient nested = ServerClient.connect(f.dir.socket(), token)) {
                nested.send(new Frame.Stop());
                assertThat(nested.read()).isInstanceOfSatisfying(Frame.Refused.class,
                        r -> assertThat(r.code()).isEqualTo("MGS2011"));
            }
            assertThat(f.server.socket()).as("still serving").exists();

            Files.createFile(go);
            assertThat(outerRun.get(30, TimeUnit.SECONDS)).isInstanceOf(Forwarding.Outcome.Exited.class);
            outer.close();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (true) {
                try (ServerClient late = ServerClient.connect(f.dir.socket(), token)) {
                    if (System.nanoTime() - until > 0) {
                        throw new AssertionError("the run's token outlived its run");
                    }
                    Thread.sleep(50);
                } catch (ServerClient.Refused r) {
                    assertThat(r.code()).isEqualTo("MGS2011");
                    break;
                }
            }
        }
    }

    @Test
    void aMadeUpRunTokenIsRefused() throws Exception {
        try (Fixture f = new Fixture(root)) {
            assertThatThrownBy(() -> ServerClient.connect(f.dir.socket(), "run-" + "0".repeat(64)))
                    .isInstanceOfSatisfying(ServerClient.Refused.class, r -> assertThat(r.code()).isEqualTo("MGS2011"));
        }
    }
}
