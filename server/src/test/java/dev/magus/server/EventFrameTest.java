package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Mode;
import dev.magus.events.Operation;
import dev.magus.events.RunEvent;
import dev.magus.server.protocol.Frame;
import dev.magus.server.protocol.FrameCodec;
import dev.magus.telemetry.ndjson.NdjsonSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A forwarded run's event frames are streamed from the event into the connection's buffer
 *; their bytes must stay exactly those of the event's NDJSON tree framed by
 * {@link FrameCodec#encode}, which the clients of every version read.
 */
class EventFrameTest {
    private static final Instant T0 = Instant.parse("2026-12-01T12:00:00.123456Z");
    private static final String ODD = "q\"b\\s\n\r\t\u0000\u001f\u007f \u00e9 \u2028 \ud83d\ude00 \ud800 </script>";

    private static List<RunEvent> events() {
        Diagnostic d = Diagnostic.of(Code.MGS2001, "read denied: " + ODD, "/home/u/" + ODD, Operation.READ,
                Layer.KERNEL, "stderr").withDetail("yaml", "sandbox:\n  allow:\n    - path: ~/.npmrc\n")
                .withDetail("odd " + ODD, ODD);
        return List.of(
                new RunEvent.Started("0123456789abcdef", T0, List.of("true", ODD, ""), Mode.REQUIRED, 4242),
                new RunEvent.Output("0123456789abcdef", T0.plusNanos(7), RunEvent.Stream.STDERR, ODD),
                new RunEvent.Output("0123456789abcdef", T0, RunEvent.Stream.STDOUT, "x".repeat(70_000)),
                new RunEvent.Diag("0123456789abcdef", T0.plusMillis(2), d),
                new RunEvent.Diag("0123456789abcdef", T0, Diagnostic.of(Code.MGS2008, "withheld MAGUS_PROC_TOKEN",
                        "MAGUS_PROC_TOKEN", Operation.NONE, Layer.POLICY, "childEnv")),
                new RunEvent.Exited("0123456789abcdef", T0.plusSeconds(1), 0, 0, Duration.ofMillis(3)),
                new RunEvent.Exited("0123456789abcdef", T0.plusSeconds(1), 137, 9, Duration.ofDays(2)));
    }

    @Test
    void theStreamedFrameIsTheTreeFramed() throws Exception {
        for (ByteBufAllocator alloc : List.of(ByteBufAllocator.DEFAULT, new UnpooledByteBufAllocator(false))) {
            for (RunEvent e : events()) {
                byte[] tree = FrameCodec.encode(new Frame.Event(NdjsonSink.toJson(e)));
                ByteBuf buf = Session.eventFrame(alloc, e);
                try {
                    assertThat(ByteBufUtil.getBytes(buf)).isEqualTo(tree);
                } finally {
                    buf.release();
                }
                ByteArrayOutputStream body = new ByteArrayOutputStream();
                FrameCodec.writeEventBody(e, body);
                assertThat(body.toByteArray()).isEqualTo(Arrays.copyOfRange(tree, 4, tree.length));
                if (!e.toString().contains("\ud800")) { // a lone surrogate is not read back, by either encoding
                    Frame back = FrameCodec.decode(body.toByteArray());
                    assertThat(((Frame.Event) back).event().toString()).isEqualTo(NdjsonSink.toJson(e).toString());
                }
            }
        }
    }
}
