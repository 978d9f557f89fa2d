package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.server.client.ServerClient;
import dev.magus.server.protocol.Frame;
import dev.magus.server.protocol.FrameCodec;
import java.io.EOFException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenRefusalTest {
    @TempDir
    Path root;

    @Test
    void aWrongOrMissingTokenIsMgs2011CountedAndTheConnectionClosed() throws Exception {
        try (Fixture f = new Fixture(root)) {
            assertThatThrownBy(() -> ServerClient.connect(f.dir.socket(), "0".repeat(64)))
                    .isInstanceOfSatisfying(ServerClient.Refused.class, r -> {
                        assertThat(r.code()).isEqualTo("MGS2011");
                        assertThat(r.getMessage()).startsWith("MGS2011").contains("wrong token");
                    });
            assertThatThrownBy(() -> ServerClient.connect(f.dir.socket(), ""))
                    .isInstanceOfSatisfying(ServerClient.Refused.class, r -> assertThat(r.getMessage()).contains("no token"));
            assertThat(f.registry.get("magus.server.refusals").tag("code", "MGS2011").counter().count()).isEqualTo(2.0);
        }
    }

    @Test
    void aRunWithoutTheHelloIsNeverRead() throws Exception {
        try (Fixture f = new Fixture(root);
                SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            c.connect(UnixDomainSocketAddress.of(f.dir.socket()));
            Path marker = root.resolve("ran");
            c.write(ByteBuffer.wrap(FrameCodec.encode(f.run("touch", marker.toString()))));
            ServerClient.Refused r = readRefusal(c);
            assertThat(r.code()).isEqualTo("MGS2011");
            assertThat(c.read(ByteBuffer.allocate(1))).as("closed after the refusal").isEqualTo(-1);
            assertThat(marker).doesNotExist();
            assertThat(f.registry.find("magus.server.forwarded").counters()).isEmpty();
        }
    }

    @Test
    void garbageBeforeTheHelloIsMgs2011() throws Exception {
        try (Fixture f = new Fixture(root);
                SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            c.connect(UnixDomainSocketAddress.of(f.dir.socket()));
            c.write(ByteBuffer.wrap(new byte[] {0, 0, 0, 3, 0, '{', '!'}));
            assertThat(readRefusal(c).code()).isEqualTo("MGS2011");
        }
    }

    @Test
    void anotherProtocolVersionIsRefusedWithAClearLineByBothEnds() throws Exception {
        try (Fixture f = new Fixture(root)) {
            assertThatThrownBy(() -> ServerClient.connect(f.dir.socket(), f.server.token(), Frame.VERSION + 1))
                    .isInstanceOfSatisfying(ServerClient.Refused.class, r -> {
                        assertThat(r.code()).isEqualTo("protocol");
                        assertThat(r.getMessage()).contains("protocol version " + Frame.VERSION)
                                .contains("client " + (Frame.VERSION + 1));
                    });
            assertThat(f.registry.get("magus.server.refusals").tag("code", "protocol").counter().count()).isEqualTo(1.0);
        }
    }

    private static ServerClient.Refused readRefusal(SocketChannel c) throws Exception {
        ByteBuffer len = ByteBuffer.allocate(4);
        while (len.hasRemaining()) {
            if (c.read(len) < 0) {
                throw new EOFException();
            }
        }
        ByteBuffer body = ByteBuffer.allocate(len.flip().getInt());
        while (body.hasRemaining()) {
            if (c.read(body) < 0) {
                throw new EOFException();
            }
        }
        Frame.Refused r = (Frame.Refused) FrameCodec.decode(body.array());
        return new ServerClient.Refused(r.code(), r.message());
    }
}
