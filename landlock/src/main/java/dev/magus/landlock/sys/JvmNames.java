package dev.magus.landlock.sys;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * File names as bytes for the kernel, the way the JVM names files: UTF-8 only when that is the
 * JVM's file-name encoding ({@code sun.jnu.encoding}), otherwise ASCII only, so that a name is
 * never one the JVM itself would spell differently. Shared by {@link GetdentsReader} and
 * {@link ProcFdLookup}; allocates nothing for an ASCII name beyond its bytes.
 */
final class JvmNames {
    /** The kernel's {@code PATH_MAX}, terminating NUL included. */
    static final int PATH_MAX = 4096;
    private static final boolean UTF8_NAMES = namesAreUtf8();

    private JvmNames() {
    }

    /**
     * The absolute path {@code text} as NUL-terminated bytes of at most {@link #PATH_MAX}; null
     * when it is not absolute, holds a NUL, is too long, or cannot be encoded exactly.
     */
    static byte[] encode(String text) {
        int n = text.length();
        if (n == 0 || n >= PATH_MAX || text.charAt(0) != '/') {
            return null;
        }
        byte[] bytes = new byte[n + 1];
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (c == 0) {
                return null;
            }
            if (c >= 0x80) {
                return encodeUtf8(text);
            }
            bytes[i] = (byte) c;
        }
        return bytes;
    }

    /**
     * {@link #encode} into {@code into} (at least {@link #PATH_MAX} long), allocating nothing for
     * an ASCII name: how many bytes were written, the NUL included; -1 where encode gives null.
     */
    static int encodeInto(String text, byte[] into) {
        int n = text.length();
        if (n == 0 || n >= PATH_MAX || text.charAt(0) != '/') {
            return -1;
        }
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (c == 0) {
                return -1;
            }
            if (c >= 0x80) {
                byte[] bytes = encodeUtf8(text);
                if (bytes == null) {
                    return -1;
                }
                System.arraycopy(bytes, 0, into, 0, bytes.length);
                return bytes.length;
            }
            into[i] = (byte) c;
        }
        into[n] = 0;
        return n + 1;
    }

    private static byte[] encodeUtf8(String text) {
        if (!UTF8_NAMES || text.indexOf(0) >= 0) {
            return null;
        }
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        // A lone surrogate would have been replaced by '?': another name.
        if (bytes.length >= PATH_MAX || !new String(bytes, StandardCharsets.UTF_8).equals(text)) {
            return null;
        }
        return Arrays.copyOf(bytes, bytes.length + 1);
    }

    /** {@code len} bytes of {@code buf} from {@code start} as the JVM would name them; null when not well-formed there. */
    static String decode(byte[] buf, int start, int len) {
        for (int i = start; i < start + len; i++) {
            if (buf[i] < 0) {
                return decodeUtf8(buf, start, len);
            }
        }
        return new String(buf, start, len, StandardCharsets.ISO_8859_1);
    }

    private static String decodeUtf8(byte[] buf, int start, int len) {
        if (!UTF8_NAMES) {
            return null;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(buf, start, len))
                    .toString();
        } catch (CharacterCodingException malformed) {
            return null;
        }
    }

    private static boolean namesAreUtf8() {
        try {
            return Charset.forName(System.getProperty("sun.jnu.encoding", "")).equals(StandardCharsets.UTF_8);
        } catch (RuntimeException unknown) {
            return false;
        }
    }
}
