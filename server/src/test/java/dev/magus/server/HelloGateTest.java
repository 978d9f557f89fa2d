package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.server.protocol.Frame;
import dev.magus.server.protocol.FrameCodec;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server before the token, over its real Unix socket: a connection that sends no hello,
 * a hello too large to be one, and a flood of both, against a server that must go on
 * serving its user.
 */
class HelloGateTest {
    @TempDir
    java.nio.file.Path root;

    private static SocketChannel connect(Fixture f) throws IOException {
        SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
        c.connect(UnixDomainSocketAddress.of(f.dir.socket()));
        return c;
    }

    /** Milliseconds until the server closes {@code c} (its read returns -1), reading what it sends. */
    private static long untilClosed(SocketChannel c, long limitMillis) throws IOException, InterruptedException {
        long start = System.nanoTime();
        c.configureBlocking(false);
        ByteBuffer buf = ByteBuffer.allocate(256);
        while (true) {
            buf.clear();
            if (c.read(buf) < 0) {
                return (System.nanoTime() - start) / 1_000_000;
            }
            if ((System.nanoTime() - start) / 1_000_000 > limitMillis) {
                throw new AssertionError("still open after " + limitMillis + " ms");
            }
            Thread.sleep(10);
        }
    }

    /** A frame header declaring {@code length} bytes, followed by {@code sent} of them. */
    private static ByteBuffer partial(int length, int sent) {
        ByteBuffer b = ByteBuffer.allocate(4 + sent);
        b.putInt(length);
        b.position(4 + sent);
        b.flip();
        return b;
    }

    @Test
    void anIdleConnectionIsClosedAfterTwoSeconds() throws Exception {
        try (Fixture f = new Fixture(root); SocketChannel c = connect(f)) {
            long took = untilClosed(c, 6_000);
            assertThat(took).isBetween(HelloGate.HELLO_WITHIN.toMillis() - 300, HelloGate.HELLO_WITHIN.toMillis() + 2_500);
            assertThat(f.registry.get("magus.server.refusals").tag("code", "hello").counter().count()).isEqualTo(1.0);
        }
    }

    @Test
    void aFiveKilobytePartialHelloIsDroppedAtOnce() throws Exception {
        try (Fixture f = new Fixture(root); SocketChannel c = connect(f)) {
            c.write(partial(5 * 1024, 1000));
            assertThat(untilClosed(c, 6_000)).isLessThan(HelloGate.HELLO_WITHIN.toMillis());
        }
    }

    @Test
    void aHelloThatFitsIsStillServed() throws Exception {
        try (Fixture f = new Fixture(root)) {
            Fixture.Result r = f.forward(f.run("/bin/sh", "-c", "echo served"));
            assertThat(r.status()).isZero();
            assertThat(r.out()).isEqualTo("served\n");
        }
    }

    @Test
    void afterTheRequestAFrameLargerThanAStdinChunkIsDroppedAtOnceAndAChunkIsServed() throws Exception {
        try (Fixture f = new Fixture(root); SocketChannel c = connect(f)) {
            String token = Files.readString(f.dir.tokenFile()).trim();
            c.write(ByteBuffer.wrap(FrameCodec.encode(new Frame.Hello(Frame.VERSION, token))));
            c.write(ByteBuffer.wrap(FrameCodec.encode(new Frame.Command(List.of("run", "--", "/bin/sh", "-c", "wc -c; sleep 30"),
                    f.workspace.toString(), f.env))));
            byte[] chunk = new byte[16 * 1024];
            c.write(ByteBuffer.wrap(FrameCodec.stdin(chunk, 0, chunk.length)));
            c.write(ByteBuffer.wrap(FrameCodec.encode(new Frame.StdinEnd())));
            // The child counted the chunk: a stdin frame of a client's size is served.
            ByteBuffer got = ByteBuffer.allocate(1 << 16);
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
            while (!new String(got.array(), 0, got.position(), java.nio.charset.StandardCharsets.ISO_8859_1).contains("16384")
                    && System.nanoTime() < deadline) {
                c.read(got);
            }
            assertThat(new String(got.array(), 0, got.position(), java.nio.charset.StandardCharsets.ISO_8859_1))
                    .contains("16384");
            // A frame of a request's size, never finished, after the request: closed at its length.
            c.write(partial(1 << 20, 1000));
            assertThat(untilClosed(c, 6_000)).isLessThan(HelloGate.HELLO_WITHIN.toMillis());
            assertThat(f.registry.get("magus.server.refusals").tag("code", "frame").counter().count()).isEqualTo(1.0);
        }
    }

    @Test
    void aFloodOfIdleAndGiantPartialConnectionsLeavesTheServerServing() throws Exception {
        try (Fixture f = new Fixture(root)) {
            List<SocketChannel> flood = new ArrayList<>();
            try {
                for (int i = 0; i < 200; i++) {
                    flood.add(connect(f));
                }
                for (int i = 0; i < 50; i++) {
                    SocketChannel c = connect(f);
                    flood.add(c);
                    try {
                        c.write(partial(FrameCodec.MAX_FRAME, 3000));
                    } catch (IOException e) {
                        // closed by the server before the write ended: what the gate is for
                    }
                }
                Fixture.Result r = f.forward(f.run("/bin/sh", "-c", "echo still-served"));
                assertThat(r.status()).isZero();
                assertThat(r.out()).isEqualTo("still-served\n");
                int open = 0;
                for (SocketChannel c : flood) {
                    c.configureBlocking(false);
                    ByteBuffer one = ByteBuffer.allocate(1);
                    try {
                        if (c.read(one) == 0) {
                            open++;
                        }
                    } catch (IOException e) {
                        // reset: closed
                    }
                }
                assertThat(open).as("connections still waiting for a hello").isLessThanOrEqualTo(HelloGate.MAX_UNAUTHENTICATED);
            } finally {
                for (SocketChannel c : flood) {
                    c.close();
                }
            }
            assertThat(Files.exists(f.dir.socket())).isTrue();
        }
    }
}
