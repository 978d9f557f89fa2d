package dev.magus.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RawBytesTest {
    private static byte[] b(int... v) {
        byte[] out = new byte[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = (byte) v[i];
        }
        return out;
    }

    @Test
    void validUtf8IsItsTextAndEveryOtherByteComesBack() {
        assertThat(RawBytes.decode("héllo €𝄞".getBytes(StandardCharsets.UTF_8))).isEqualTo("héllo €𝄞");
        String raw = RawBytes.decode(b('a', 0xff, 'b', 0xc3, 0x28, 0xed, 0xa0, 0x80, 0xe2, 0x82));
        assertThat(hasRawByte(raw)).isTrue();
        assertThat(raw).startsWith("a\uDCFFb\uDCC3(");
        assertThat(RawBytes.encode(raw)).isEqualTo(b('a', 0xff, 'b', 0xc3, 0x28, 0xed, 0xa0, 0x80, 0xe2, 0x82));
        assertThat(hasRawByte("plain €𝄞")).isFalse();
        // A character beyond the BMP whose low surrogate lies in U+DC80..U+DCFF is no raw byte.
        String high = new String(Character.toChars(0x10080));
        assertThat(hasRawByte(high)).isFalse();
        assertThat(RawBytes.encode(high)).isEqualTo(high.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void anyBytesRoundTrip() {
        Random r = new Random(7);
        for (int n = 0; n < 2000; n++) {
            byte[] bytes = new byte[r.nextInt(12)];
            r.nextBytes(bytes);
            assertThat(RawBytes.encode(RawBytes.decode(bytes))).isEqualTo(bytes);
        }
    }

    @Test
    void theArgumentsAreTakenFromTheCommandLineOnlyWhereTheJvmMangledThem() {
        ByteArrayOutputStream cmdline = new ByteArrayOutputStream();
        for (byte[] w : new byte[][] {"java".getBytes(), "-cp".getBytes(), "x".getBytes(), "Main".getBytes(), "run".getBytes(),
                b('a', 0xff), "é".getBytes(StandardCharsets.UTF_8)}) {
            cmdline.writeBytes(w);
            cmdline.write(0);
        }
        String[] jvm = {"run", "a\uFFFD", "é"};
        assertThat(RawBytes.arguments(jvm, cmdline.toByteArray(), StandardCharsets.UTF_8))
                .containsExactly("run", "a\uDCFF", "é");
        String[] clean = {"run", "x"};
        assertThat(RawBytes.arguments(clean, cmdline.toByteArray(), StandardCharsets.UTF_8)).isSameAs(clean);
        String[] other = {"run", "b\uFFFD", "é"};
        assertThat(RawBytes.arguments(other, cmdline.toByteArray(), StandardCharsets.UTF_8))
                .as("not this command line's: as they are").isSameAs(other);
    }

    @Test
    void aMangledVariableIsTakenFromTheEnvironmentsBytesAndNothingElseChanges() {
        byte[] environ = bytes("A=plain\0W=p", 0xff, "q\0B=x=y\0NOEQUALS\0");
        java.util.Map<String, String> jvm = java.util.Map.of("A", "plain", "W", "p\uFFFDq", "B", "x=y");
        java.util.Map<String, String> env = RawBytes.environment(jvm, environ, StandardCharsets.UTF_8);
        assertThat(env).containsOnlyKeys("A", "W", "B").containsEntry("A", "plain").containsEntry("B", "x=y");
        assertThat(RawBytes.encode(env.get("W"))).containsExactly('p', 0xff, 'q');
        // Nothing mangled: the JVM's own map, untouched.
        java.util.Map<String, String> clean = java.util.Map.of("A", "plain");
        assertThat(RawBytes.environment(clean, environ, StandardCharsets.UTF_8)).isSameAs(clean);
    }

    @Test
    void aVariableWhoseBytesAreNotWhatTheJvmSawIsLeftAsTheJvmHasIt() {
        // The environment changed under the JVM's view (or another variable's bytes): never swapped in.
        byte[] environ = bytes("W=other", 0xff, "\0");
        java.util.Map<String, String> jvm = java.util.Map.of("W", "p\uFFFDq");
        assertThat(RawBytes.environment(jvm, environ, StandardCharsets.UTF_8)).isEqualTo(jvm);
    }

    /** Text as UTF-8, an int as that one byte. */
    private static byte[] bytes(Object... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object p : parts) {
            if (p instanceof Integer b) {
                out.write(b);
            } else {
                out.writeBytes(((String) p).getBytes(StandardCharsets.UTF_8));
            }
        }
        return out.toByteArray();
    }

    /** Whether {@code text} holds a byte that is not UTF-8 (decode's U+DC80..U+DCFF). */
    private static boolean hasRawByte(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c >= 0xdc80 && c <= 0xdcff && (i == 0 || !Character.isHighSurrogate(text.charAt(i - 1)))) {
                return true;
            }
        }
        return false;
    }
}
