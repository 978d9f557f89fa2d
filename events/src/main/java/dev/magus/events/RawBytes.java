package dev.magus.events;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Arguments and variable values as the bytes the caller gave, carried in a {@link String}. On
 * Linux an argument is bytes, and not every argument is UTF-8: decoded the usual way, a
 * byte that starts no valid sequence became U+FFFD and the child got other bytes than the
 * caller wrote. Here each such byte is kept as a lone low surrogate, U+DC80 to U+DCFF (as
 * Python's {@code surrogateescape} does), which no valid UTF-8 decodes to, and
 * {@link #encode} gives the byte back; every valid sequence is its character as usual.
 */
public final class RawBytes {
    private static final char ESCAPE = 0xDC00;

    private RawBytes() {
    }

    /** {@code bytes} as text: valid UTF-8 decoded, each other byte kept as U+DC80..U+DCFF. */
    public static String decode(byte[] bytes) {
        StringBuilder out = new StringBuilder(bytes.length);
        int i = 0;
        while (i < bytes.length) {
            int b = bytes[i] & 0xff;
            int n = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
            int cp = n == 1 ? b : n == 2 ? b & 0x1f : n == 3 ? b & 0x0f : b & 0x07;
            boolean ok = n > 0 && i + n <= bytes.length;
            for (int k = 1; ok && k < n; k++) {
                int c = bytes[i + k] & 0xff;
                ok = (c & 0xc0) == 0x80;
                cp = (cp << 6) | (c & 0x3f);
            }
            // No overlong form, no encoded surrogate, nothing past U+10FFFF: the JDK's decoder refuses them too.
            ok = ok && !(n == 3 && cp < 0x800) && !(n == 4 && (cp < 0x10000 || cp > 0x10ffff))
                    && !(cp >= 0xd800 && cp <= 0xdfff);
            if (!ok) {
                out.append((char) (ESCAPE | b));
                i++;
            } else {
                out.appendCodePoint(cp);
                i += n;
            }
        }
        return out.toString();
    }

    /**
     * The bytes {@code text} stands for: UTF-8, except U+DC80..U+DCFF, each the one byte it
     * kept. Any other lone surrogate is U+FFFD's bytes, as the JDK's encoder would have it.
     */
    public static byte[] encode(String text) {
        if (!hasSurrogate(text)) {
            return text.getBytes(StandardCharsets.UTF_8);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(text.length() + 8);
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c >= 0xdc80 && c <= 0xdcff) {
                out.write(c & 0xff);
                i++;
            } else if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                out.writeBytes(text.substring(i, i + 2).getBytes(StandardCharsets.UTF_8));
                i += 2;
            } else if (Character.isSurrogate(c)) {
                out.writeBytes("\uFFFD".getBytes(StandardCharsets.UTF_8));
                i++;
            } else {
                int j = i;
                while (j < text.length() && !Character.isSurrogate(text.charAt(j))) {
                    j++;
                }
                out.writeBytes(text.substring(i, j).getBytes(StandardCharsets.UTF_8));
                i = j;
            }
        }
        return out.toByteArray();
    }

    /**
     * {@code args} as the caller wrote them, from {@code cmdline} (the process's
     * {@code /proc/self/cmdline}: its words, each ended by a NUL, the program's arguments last).
     * The JVM decoded them with {@code jnu}, and a byte it could not decode became U+FFFD; each
     * word is taken back only when decoding it that way gives the very argument, so a command
     * line that is not the JVM's own (an embedding launcher) leaves {@code args} as they are.
     */
    public static String[] arguments(String[] args, byte[] cmdline, java.nio.charset.Charset jnu) {
        boolean mangled = false;
        for (String a : args) {
            mangled |= a.indexOf('\uFFFD') >= 0;
        }
        if (!mangled) {
            return args;
        }
        java.util.List<byte[]> words = new java.util.ArrayList<>();
        int start = 0;
        for (int i = 0; i < cmdline.length; i++) {
            if (cmdline[i] == 0) {
                words.add(java.util.Arrays.copyOfRange(cmdline, start, i));
                start = i + 1;
            }
        }
        if (words.size() < args.length) {
            return args;
        }
        String[] out = new String[args.length];
        int first = words.size() - args.length;
        for (int k = 0; k < args.length; k++) {
            byte[] w = words.get(first + k);
            if (!new String(w, jnu).equals(args[k])) {
                return args;
            }
            out[k] = decode(w);
        }
        return out;
    }

    /** {@link #arguments(String[], byte[], java.nio.charset.Charset)} of this process. */
    public static String[] ofThisProcess(String[] args) {
        for (String a : args) {
            if (a.indexOf('\uFFFD') >= 0) {
                try {
                    return arguments(args, java.nio.file.Files.readAllBytes(java.nio.file.Path.of("/proc/self/cmdline")), jnu());
                } catch (java.io.IOException | RuntimeException e) {
                    return args; // no /proc (another system): as the JVM decoded them
                }
            }
        }
        return args;
    }

    /** The charset the JVM decoded its arguments and environment with. */
    private static java.nio.charset.Charset jnu() {
        String jnu = System.getProperty("sun.jnu.encoding", "UTF-8");
        return java.nio.charset.Charset.isSupported(jnu) ? java.nio.charset.Charset.forName(jnu) : StandardCharsets.UTF_8;
    }

    /**
     * This process's environment as {@link #environment} gives it from {@code /proc/self/environ}:
     * {@code env} itself when no variable was mangled or there is no such file.
     */
    public static java.util.Map<String, String> environmentOfThisProcess(java.util.Map<String, String> env) {
        if (!mangled(env)) {
            return env;
        }
        try {
            return environment(env, java.nio.file.Files.readAllBytes(java.nio.file.Path.of("/proc/self/environ")), jnu());
        } catch (java.io.IOException | RuntimeException e) {
            return env; // no /proc (another system): as the JVM decoded it
        }
    }

    /**
     * {@code env} (the JVM's {@code System.getenv()}, which decodes the environment with
     * {@code jnu} and turns a byte it cannot decode into U+FFFD) with each variable so mangled
     * taken again from {@code environ}, the process's {@code NAME=value} entries each ended by a
     * NUL, and {@link #decode}d: such a byte then reaches a child as itself, as it does through
     * the native client. An entry is taken only where the JVM's own decoding of it is what
     * {@code env} holds, so a variable is never swapped for another's bytes.
     */
    public static java.util.Map<String, String> environment(java.util.Map<String, String> env, byte[] environ,
            java.nio.charset.Charset jnu) {
        if (!mangled(env)) {
            return env;
        }
        java.util.Map<String, String> out = new java.util.HashMap<>(env);
        int start = 0;
        for (int i = 0; i <= environ.length; i++) {
            if (i < environ.length && environ[i] != 0) {
                continue;
            }
            int eq = start;
            while (eq < i && environ[eq] != '=') {
                eq++;
            }
            if (eq > start && eq < i) {
                String name = new String(environ, start, eq - start, jnu);
                String value = new String(environ, eq + 1, i - eq - 1, jnu);
                if ((name.indexOf('\uFFFD') >= 0 || value.indexOf('\uFFFD') >= 0) && value.equals(env.get(name))) {
                    out.remove(name);
                    out.put(decode(java.util.Arrays.copyOfRange(environ, start, eq)),
                            decode(java.util.Arrays.copyOfRange(environ, eq + 1, i)));
                }
            }
            start = i + 1;
        }
        return java.util.Collections.unmodifiableMap(out);
    }

    private static boolean mangled(java.util.Map<String, String> env) {
        for (java.util.Map.Entry<String, String> e : env.entrySet()) {
            if (e.getKey().indexOf('\uFFFD') >= 0 || e.getValue().indexOf('\uFFFD') >= 0) {
                return true;
            }
        }
        return false;
    }

    private static boolean hasSurrogate(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (Character.isSurrogate(text.charAt(i))) {
                return true;
            }
        }
        return false;
    }
}
