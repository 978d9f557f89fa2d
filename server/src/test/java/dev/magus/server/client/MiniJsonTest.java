package dev.magus.server.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.magus.events.RawBytes;
import dev.magus.server.protocol.Frame;
import dev.magus.server.protocol.FrameCodec;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/** The fast client's JSON is Jackson's: what one writes the other reads, any string included. */
class MiniJsonTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Property(tries = 300)
    void anyStringQuotedIsReadBackByJacksonAndByItself(@ForAll String text) throws Exception {
        String json = MiniJson.quote(new StringBuilder(), text).toString();
        assertThat(MAPPER.readValue(json, String.class)).isEqualTo(text);
        assertThat(MiniJson.parse(json)).isEqualTo(text);
        assertThat(MiniJson.parse(MAPPER.writeValueAsString(text))).isEqualTo(text);
    }

    @Test
    void readsTheServersControlFrames() throws Exception {
        byte[] exit = FrameCodec.encode(new Frame.Exit(130, 2));
        Object parsed = MiniJson.parse(new String(Arrays.copyOfRange(exit, 5, exit.length), "UTF-8"));
        assertThat(parsed).isEqualTo(Map.of("type", "exit", "status", 130L, "signal", 2L));
        assertThat(MiniJson.parse(" {\"a\": [1, 2.5, true, null, {\"b\": \"\\u00e9\\n\"}], \"c\": {}} "))
                .isEqualTo(Map.of("a", Arrays.asList(1L, 2.5, true, null, Map.of("b", "é\n")), "c", Map.of()));
        assertThat(MiniJson.parse("[]")).isEqualTo(List.of());
    }

    @Test
    void aByteThatIsNotUtf8CrossesTheSocketAsItselfWithEitherWriter() throws Exception {
        String raw = RawBytes.decode(new byte[] {'a', (byte) 0xff, 'b', (byte) 0xc3});
        String pair = new String(Character.toChars(0x10080)); // its low surrogate is U+DC80: no raw byte
        String[] words = {"run", "--env", "V=" + raw, "--", "echo", raw, pair};
        byte[] body = FastClient.command(words, Map.of("X", raw)).toString().getBytes(StandardCharsets.UTF_8);
        byte[] frame = new byte[body.length + 1];
        System.arraycopy(body, 0, frame, 1, body.length);
        Frame.Command c = (Frame.Command) FrameCodec.decode(frame);
        assertThat(c.args()).containsExactly(words);
        assertThat(c.env()).containsEntry("X", raw);
        byte[] jackson = FrameCodec.encode(c);
        Frame.Command again = (Frame.Command) FrameCodec.decode(Arrays.copyOfRange(jackson, 4, jackson.length));
        assertThat(again.args()).containsExactly(words);
        assertThat(again.env()).containsEntry("X", raw);
        assertThat(RawBytes.encode(again.args().get(5))).containsExactly('a', 0xff, 'b', 0xc3);
    }

    @Test
    void somethingElseIsRefused() {
        assertThatThrownBy(() -> MiniJson.parse("{\"a\":")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MiniJson.parse("{} x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MiniJson.parse("\"open")).isInstanceOf(IllegalArgumentException.class);
    }
}
