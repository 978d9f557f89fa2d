package dev.magus.server.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A run's flags survive the socket: -v, -q, --fail-on-denial and --supervise, absent from the JSON when off. */
class SubmitFrameTest {
    private static Frame.Submit submit(boolean verbose, boolean quiet, boolean failOnDenial) {
        return new Frame.Submit(List.of("true"), "/ws", Map.of(), Map.of(), List.of(), Optional.empty(), false, false,
                List.of(), List.of(), Optional.empty(), Optional.empty(), List.of(), verbose, quiet, failOnDenial);
    }

    private static Frame.Submit roundTrip(Frame.Submit s) throws FrameCodec.ProtocolException {
        byte[] framed = FrameCodec.encode(s);
        return (Frame.Submit) FrameCodec.decode(Arrays.copyOfRange(framed, 4, framed.length));
    }

    @Test
    void theFlagsRoundTripAndAreAbsentWhenOff() throws Exception {
        for (boolean[] f : new boolean[][] {{false, false, false}, {true, false, true}, {false, true, true}, {false, true, false}}) {
            Frame.Submit back = roundTrip(submit(f[0], f[1], f[2]));
            assertThat(List.of(back.verbose(), back.quiet(), back.failOnDenial())).containsExactly(f[0], f[1], f[2]);
        }
        byte[] off = FrameCodec.encode(submit(false, false, false));
        assertThat(new String(off, StandardCharsets.UTF_8)).doesNotContain("failOnDenial").doesNotContain("supervise");
    }

    @Test
    void superviseRoundTripsWithOrWithoutAnAsk() throws Exception {
        Frame.Submit supervised = submit(false, false, false).supervising();
        assertThat(new String(FrameCodec.encode(supervised), StandardCharsets.UTF_8)).contains("\"supervise\":true");
        Frame.Submit back = roundTrip(supervised);
        assertThat(back.supervise()).isTrue();
        assertThat(back.ask()).isEmpty();
        assertThat(back).isEqualTo(supervised);
        Frame.Submit asking = roundTrip(supervised.asking(java.time.Duration.ofSeconds(7)));
        assertThat(asking.supervise()).isTrue();
        assertThat(asking.ask()).contains(java.time.Duration.ofSeconds(7));
        assertThat(roundTrip(submit(true, false, false)).supervise()).isFalse();
    }
}
