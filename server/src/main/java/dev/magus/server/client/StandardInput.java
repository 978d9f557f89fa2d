package dev.magus.server.client;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether magus was started with its standard input closed. The JVM then opens its own class
 * image ({@code lib/modules}) as descriptor 0, the lowest one free, and {@link System#in}
 * reads that file: handed to the child, a closed input became the JDK's bytes, and
 * {@code magus run -- wc -c <&-} never ended. Such a run's child reads {@code /dev/null}, on
 * every path. bin/magus and the native client put {@code /dev/null} in place of a closed
 * descriptor 0 before the JVM starts; this covers a JVM started without them.
 */
public final class StandardInput {
    private StandardInput() {
    }

    /** Whether descriptor 0 is the JVM's class image, which no caller hands magus as its input. */
    public static boolean closedAtStart() {
        try {
            Path zero = Files.readSymbolicLink(Path.of("/proc/self/fd/0"));
            return isClassImage(zero, Path.of(System.getProperty("java.home", "/nonexistent")));
        } catch (IOException | RuntimeException e) {
            return false; // no /proc (another system): as before, System.in is the input
        }
    }

    /** Whether descriptor 0 is a terminal (by what it is open on: this JDK has no isatty). */
    public static boolean terminal() {
        try {
            String zero = Files.readSymbolicLink(Path.of("/proc/self/fd/0")).toString();
            return zero.startsWith("/dev/pts/") || zero.startsWith("/dev/tty");
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Where a client sends each chunk of its input, as a stdin frame. */
    @FunctionalInterface
    interface Chunks {
        void send(byte[] buf, int len) throws IOException;
    }

    /**
     * Sends {@code in} to the run chunk by chunk until it ends. An input that cannot be read (a
     * directory, a terminal hung up) ends as it does for a local run: the child reads its end,
     * rather than waiting for bytes that never come.
     *
     * @throws IOException when a chunk cannot be sent: the connection is gone
     */
    static void pump(java.io.InputStream in, Chunks out) throws IOException {
        byte[] buf = new byte[16 * 1024];
        while (true) {
            int n;
            try {
                n = in.read(buf);
            } catch (IOException e) {
                n = -1;
            }
            if (n < 0) {
                return;
            }
            if (n > 0) {
                out.send(buf, n);
            }
        }
    }

    /** Whether {@code fd0} (descriptor 0's target) is the class image of the JDK at {@code javaHome}. */
    static boolean isClassImage(Path fd0, Path javaHome) {
        Path image = javaHome.resolve("lib").resolve("modules");
        if (fd0.equals(image)) {
            return true;
        }
        try {
            return fd0.equals(image.toRealPath());
        } catch (IOException e) {
            return false;
        }
    }
}
