package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.server.client.ServerClient;
import dev.magus.server.protocol.Frame;
import dev.magus.server.protocol.FrameCodec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run reaches the server only as a client's words: a run already parsed (the "run" frame of
 * earlier versions) is no frame, and the server runs nothing for it; nor does it send events.
 */
class WordsOnlyTest {
    @TempDir
    Path root;

    private static byte[] json(String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        return FrameCodec.bytes(FrameCodec.JSON, b, 0, b.length);
    }

    @Test
    void neitherARunNorAnEventIsAFrame() {
        for (String type : new String[] {"run", "event"}) {
            byte[] framed = json("{\"type\":\"" + type + "\",\"argv\":[\"true\"],\"cwd\":\"/\",\"env\":{},\"event\":{}}");
            assertThatThrownBy(() -> FrameCodec.decode(java.util.Arrays.copyOfRange(framed, 4, framed.length)))
                    .isInstanceOf(FrameCodec.ProtocolException.class).hasMessageContaining("unknown type " + type);
        }
    }

    @Test
    void aParsedRunOverTheSocketIsAProtocolErrorAndRunsNothing() throws Exception {
        try (Fixture f = new Fixture(root); ServerClient c = f.client()) {
            Path marker = root.resolve("ran");
            c.sendRaw(json("{\"type\":\"run\",\"argv\":[\"touch\",\"" + marker + "\"],\"cwd\":\"" + f.workspace
                    + "\",\"env\":{\"PATH\":\"/usr/bin:/bin\"},\"sandbox\":\"off\",\"allow\":[\"/\"]}"));
            Frame.Refused refused = ForwardedAskTest.refusalBeforeClose(c);
            assertThat(refused).isNotNull();
            assertThat(refused.code()).isEqualTo("protocol");
            assertThat(refused.message()).contains("unknown type run");
            assertThat(marker).doesNotExist();
            assertThat(f.registry.find("magus.server.forwarded").counters()).isEmpty();
        }
    }
}
