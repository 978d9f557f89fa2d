package dev.magus.server.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.server.protocol.Frame;
import dev.magus.server.protocol.FrameCodec;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The fast client's opening write: the hello and the run, framed as two frames the server's codec reads one by one. */
class RunFramesTest {
    @Test
    void theOpeningIsTheHelloThenTheRunEachAWholeFrame() throws Exception {
        FastArgs run = FastArgs.parse(new String[] {"run", "--env", "A=é", "--", "printf", "\"\\n\u0001"}).orElseThrow();
        String token = "tok\"en\\";
        ByteBuffer opening = RunFrames.frames(RunFrames.hello(token), RunFrames.submit(run, Map.of("HOME", "/h")));
        byte[] all = Arrays.copyOfRange(opening.array(), opening.position(), opening.limit());

        int first = ByteBuffer.wrap(all).getInt();
        byte[] hello = Arrays.copyOfRange(all, 4, 4 + first);
        // The same bytes as the server's own codec writes for that hello (field order included).
        assertThat(Arrays.copyOfRange(all, 0, 4 + first)).isEqualTo(FrameCodec.encode(new Frame.Hello(FastClient.VERSION, token)));
        assertThat(FrameCodec.decode(hello)).isEqualTo(new Frame.Hello(FastClient.VERSION, token));

        int second = ByteBuffer.wrap(all, 4 + first, 4).getInt();
        assertThat(all.length).isEqualTo(4 + first + 4 + second);
        Frame submit = FrameCodec.decode(Arrays.copyOfRange(all, 8 + first, all.length));
        assertThat(submit).isInstanceOfSatisfying(Frame.Submit.class, s -> {
            assertThat(s.argv()).containsExactly("printf", "\"\\n\u0001");
            assertThat(s.set()).isEqualTo(Map.of("A", "é"));
            assertThat(s.env()).isEqualTo(Map.of("HOME", "/h"));
        });
    }
}
