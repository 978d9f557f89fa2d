package dev.magus.orchestrator.pipeline;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Reads a child's pipe line by line until end of file, on the calling (blocking) thread.
 * Lines are decoded as UTF-8 with malformed bytes replaced, so a tool's binary output never
 * stops the stream; one line is capped at {@link #MAX_LINE} bytes and the rest is delivered as
 * further lines, so a child cannot make magus hold an unbounded line.
 */
public final class OutputPump {
    public static final int MAX_LINE = 64 * 1024;

    private OutputPump() {
    }

    /**
     * What the pumps of one child are doing: how many have not finished, how many of those wait
     * in a read of their pipe, and the bytes read so far. A pump that is not in a read is busy
     * (decoding, handing on lines, or writing to a pass-through whose reader is slow), so it
     * will finish; one that waits in a read may wait for ever on a pipe a stray holds open.
     */
    public static final class Progress {
        private final AtomicLong read = new AtomicLong();
        private final AtomicInteger pending;
        private final AtomicInteger reading = new AtomicInteger();

        /** @param pumps how many pumps will report here */
        public Progress(int pumps) {
            this.pending = new AtomicInteger(pumps);
        }

        public long read() {
            return read.get();
        }

        /** Whether a pump that has not finished is doing something other than waiting on its pipe. */
        public boolean busy() {
            return pending.get() > reading.get();
        }
    }

    /**
     * Hands every line of {@code in} to {@code line}, also copying every byte read to
     * {@code raw}, if given, as it is read (flushed each time). A failing {@code raw} is
     * dropped; the pipe keeps draining. Keeps {@code progress}: whoever waits for
     * the pipe to drain can tell a pump that waits on its pass-through's reader (a forwarded
     * run's client reading at its own pace) or still moves from one that waits on a pipe a
     * stray descendant holds open.
     */
    public static void pump(InputStream in, Optional<OutputStream> raw, Consumer<String> line, Progress progress) {
        InputStream counted = new FilterInputStream(in) {
            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                progress.reading.incrementAndGet();
                try {
                    int n = super.read(b, off, len);
                    if (n > 0) {
                        progress.read.addAndGet(n);
                    }
                    return n;
                } finally {
                    progress.reading.decrementAndGet();
                }
            }
        };
        try {
            pumpCounted(counted, raw, line);
        } finally {
            progress.pending.decrementAndGet();
        }
    }

    private static void pumpCounted(InputStream counted, Optional<OutputStream> raw, Consumer<String> line) {
        Pass pass = new Pass(raw.orElse(null));
        Pending pending = new Pending();
        byte[] buf = new byte[READ];
        try (InputStream in = counted) {
            for (int n; (n = in.read(buf, 0, buf.length)) >= 0; ) {
                int end = lastNewline(buf, n) + 1;
                // The whole lines of this read pass through first, then their events, then the
                // start of a line still to end: whatever an event makes magus say (a denial's line
                // on stderr) follows a line of the child's, never splits one.
                pass.write(buf, 0, end);
                int start = 0;
                for (int i = 0; i < end; i++) {
                    if (buf[i] == '\n') {
                        pending.append(buf, start, i - start);
                        while (pending.size() > MAX_LINE) {
                            line.accept(pending.cut());
                        }
                        line.accept(pending.take(true));
                        start = i + 1;
                    }
                }
                pass.write(buf, end, n - end);
                pending.append(buf, end, n - end);
                while (pending.size() >= MAX_LINE) {
                    line.accept(pending.cut());
                }
            }
        } catch (IOException e) {
            // The pipe was closed under us (the run ended with a descendant still holding it).
        }
        if (pending.size() > 0) {
            line.accept(pending.take(true));
        }
    }

    /** How much one read of the pipe takes, and so the most one pass-through write holds. */
    private static final int READ = 8192;

    private static int lastNewline(byte[] b, int n) {
        for (int i = n - 1; i >= 0; i--) {
            if (b[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    /** The pass-through: every byte read, as it is read, flushed; dropped once its reader goes away. */
    private static final class Pass {
        private OutputStream raw;

        Pass(OutputStream raw) {
            this.raw = raw;
        }

        void write(byte[] b, int off, int len) {
            if (raw == null || len == 0) {
                return;
            }
            try {
                raw.write(b, off, len);
                raw.flush();
            } catch (IOException e) {
                // Whoever read the pass-through went away; the events go on.
                raw = null;
            }
        }
    }

    /** The bytes of the line being read, decoded as UTF-8 (a malformed byte replaced) once it ends. */
    private static final class Pending extends java.io.ByteArrayOutputStream {
        void append(byte[] b, int off, int len) {
            write(b, off, len);
        }

        /** The line so far, without a carriage return that ends it when {@code stripCr}. */
        String take(boolean stripCr) {
            int n = count;
            if (stripCr && n > 0 && buf[n - 1] == '\r') {
                n--;
            }
            String s = new String(buf, 0, n, StandardCharsets.UTF_8);
            reset();
            return s;
        }

        /** The first {@link #MAX_LINE} bytes, ended before a character they would split, as a line of its own. */
        String cut() {
            int n = Math.min(MAX_LINE, count);
            // Back to the start of a character the cut would leave unfinished (its lead byte
            // says how long it is): it begins the next line whole.
            for (int p = n - 1; p >= Math.max(0, n - 3); p--) {
                int lead = buf[p] & 0xFF;
                if ((lead & 0xC0) != 0x80) {
                    int len = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
                    n = p + len > n ? p : n;
                    break;
                }
            }
            String s = new String(buf, 0, n, StandardCharsets.UTF_8);
            byte[] rest = java.util.Arrays.copyOfRange(buf, n, count);
            reset();
            write(rest, 0, rest.length);
            return s;
        }
    }
}
