package dev.magus.server.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.magus.events.RawBytes;
import dev.magus.server.protocol.Frame;
import dev.magus.server.protocol.FrameCodec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/** The fast client's control frames: what it writes the server's codec reads, and what the server writes it reads. */
class FastClientTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** The command frame as the server decodes it (the kind byte first). */
    private static Frame.Command decoded(String[] args, Map<String, String> env) throws Exception {
        byte[] body = FastClient.command(args, env);
        byte[] frame = new byte[body.length + 1];
        System.arraycopy(body, 0, frame, 1, body.length);
        return (Frame.Command) FrameCodec.decode(frame);
    }

    /** A frame as {@code FrameCodec.encode} gives it, without its length. */
    private static byte[] unframed(byte[] encoded) {
        return Arrays.copyOfRange(encoded, 4, encoded.length);
    }

    private static byte[] control(String json) {
        byte[] b = json.getBytes(StandardCharsets.UTF_8);
        return unframed(FrameCodec.bytes((byte) 0, b, 0, b.length));
    }

    @Property(tries = 300)
    void anyWordsAndEnvironmentAreReadBackByTheServersCodec(@ForAll String word, @ForAll String name, @ForAll String value)
            throws Exception {
        String[] args = {"run", "--", word, value};
        Frame.Command c = decoded(args, Map.of(name, value));
        assertThat(c.args()).containsExactly(args);
        assertThat(c.env()).containsExactly(Map.entry(name, value));
    }

    @Test
    void aByteThatIsNotUtf8CrossesTheSocketAsItself() throws Exception {
        String raw = RawBytes.decode(new byte[] {'a', (byte) 0xff, 'b', (byte) 0xc3});
        String pair = new String(Character.toChars(0x10080)); // its low surrogate is U+DC80: no raw byte
        String[] words = {"run", "--env", "V=" + raw, "--", "echo", raw, pair};
        byte[] body = FastClient.command(words, Map.of("X", raw));
        String text = new String(body, StandardCharsets.ISO_8859_1);
        // The wire form magus-client.c writes too: a raw byte as its escaped surrogate, a pair as its UTF-8.
        assertThat(text).contains("\"echo\",\"a\\uDCFFb\\uDCC3\",\"\u00f0\u0090\u0082\u0080\"]");
        Frame.Command c = decoded(words, Map.of("X", raw));
        assertThat(c.args()).containsExactly(words);
        assertThat(c.env()).containsEntry("X", raw);
        assertThat(c.args().subList(4, 7)).containsExactly("echo", raw, pair);
        assertThat(RawBytes.encode(c.args().get(5))).containsExactly('a', 0xff, 'b', 0xc3);
        assertThat(RawBytes.encode(c.args().get(2))).containsExactly('V', '=', 'a', 0xff, 'b', 0xc3);
        assertThat(RawBytes.encode(c.env().get("X"))).containsExactly('a', 0xff, 'b', 0xc3);
    }

    @Test
    void oddCharactersAreEscapedExactlyAsTheNativeClientEscapesThem() throws Exception {
        String odd = "\u0001\b\f\n\r\t\"\\/\u007f\u00e9\u2028\ud800";
        byte[] body = FastClient.command(new String[] {odd}, Map.of());
        assertThat(new String(body, StandardCharsets.UTF_8))
                .startsWith("{\"type\":\"command\",\"args\":[\"\\u0001\\b\\f\\n\\r\\t\\\"\\\\/\u007f\u00e9\u2028\\uD800\"],\"cwd\":");
        assertThat(decoded(new String[] {odd}, Map.of()).args()).containsExactly(odd);
    }

    @Test
    void aLargeCommandIsOneWholeFrame() throws Exception {
        StringBuilder big = new StringBuilder();
        for (int i = 0; i < 1 << 20; i++) {
            big.append(i % 3 == 0 ? "\ud83d\ude00" : i % 3 == 1 ? "\udcff" : "x\"");
        }
        Map<String, String> env = new LinkedHashMap<>();
        for (int i = 0; i < 5000; i++) {
            env.put("V" + i, big.substring(i, i + 100));
        }
        String[] args = {"run", "--", "echo", big.toString()};
        Frame.Command c = decoded(args, env);
        assertThat(c.args()).containsExactly(args);
        assertThat(c.env()).isEqualTo(env);
    }

    @Test
    void readsTheServersControlFrames() throws Exception {
        assertThat(FastClient.control(unframed(FrameCodec.encode(new Frame.Exit(130, 2)))))
                .isEqualTo(Map.of("type", "exit", "status", 130L, "signal", 2L));
        assertThat(FastClient.control(unframed(FrameCodec.encode(new Frame.Welcome(Frame.VERSION)))))
                .isEqualTo(Map.of("type", "welcome", "version", (long) Frame.VERSION));
        Map<String, Object> expected = new HashMap<>();
        expected.put("type", "ask");
        expected.put("path", "/home/\u00e9\n\udcff");
        expected.put("id", 7L);
        expected.put("event", null); // an object: the server's to render
        expected.put("list", null);
        expected.put("big", 1e20);
        expected.put("half", 0.5);
        expected.put("stdin", true);
        expected.put("no", false);
        expected.put("none", null);
        assertThat(FastClient.control(control(" {\"type\": \"ask\", \"path\": \"/home/\\u00e9\\n\\udcff\", \"id\": 7,"
                + " \"event\": {\"a\": [1, {\"b\": 2}]}, \"list\": [1, [2]], \"big\": 100000000000000000000, \"half\": 5e-1,"
                + " \"stdin\": true, \"no\": false, \"none\": null} ")))
                .isEqualTo(expected);
    }

    @Test
    void somethingElseIsRefused() {
        for (String json : List.of("{\"a\":", "{} x", "{}{}", "\"open", "[1]", "7", "")) {
            assertThatThrownBy(() -> FastClient.control(control(json))).as(json).isInstanceOf(IOException.class)
                    .hasMessageStartingWith("a control frame that is not");
        }
        assertThatThrownBy(() -> FastClient.control(new byte[] {1, '{', '}'})).isInstanceOf(IOException.class)
                .hasMessage("the magus server sent bytes where a control frame belongs");
    }

    @Test
    void theServersOwnWriterIsReadToo() throws Exception {
        String raw = RawBytes.decode(new byte[] {'a', (byte) 0xff});
        Map<String, Object> frame = Map.of("type", "refused", "message", raw + "\u0000\ud83d\ude00");
        byte[] json = MAPPER.writeValueAsBytes(frame);
        assertThat(FastClient.control(unframed(FrameCodec.bytes((byte) 0, json, 0, json.length)))).isEqualTo(frame);
    }
}
