package dev.magus.orchestrator.pipeline;

import java.io.BufferedReader;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Reads a child's pipe line by line until end of file, on the calling (blocking) thread.
 * Lines are decoded as UTF-8 with malformed bytes replaced, so a tool's binary output never
 * stops the stream; one line is capped at {@link #MAX_LINE} characters and the rest is
 * delivered as further lines, so a child cannot make magus hold an unbounded line.
 */
public final class OutputPump {
    public static final int MAX_LINE = 64 * 1024;

    private OutputPump() {
    }

    /**
     * Hands every line of {@code in} to {@code line}, also copying every byte read to
     * {@code raw}, if given, as it is read (flushed each time). A failing {@code raw} is
     * dropped; the pipe keeps draining.
     */
    public static void pump(InputStream in, Optional<OutputStream> raw, Consumer<String> line) {
        pump(in, raw, line, new Progress(1));
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
     * {@link #pump(InputStream, Optional, Consumer)}, keeping {@code progress}: whoever waits for
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
        InputStream source = raw.<InputStream>map(r -> new Tee(counted, r)).orElse(counted);
        var decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        try (BufferedReader r = new BufferedReader(new InputStreamReader(source, decoder), 16 * 1024)) {
            StringBuilder sb = new StringBuilder();
            int c;
            while ((c = r.read()) >= 0) {
                if (c == '\n') {
                    line.accept(stripCr(sb));
                    sb.setLength(0);
                } else {
                    sb.append((char) c);
                    if (sb.length() >= MAX_LINE) {
                        line.accept(sb.toString());
                        sb.setLength(0);
                    }
                }
            }
            if (sb.length() > 0) {
                line.accept(stripCr(sb));
            }
        } catch (IOException e) {
            // The pipe was closed under us (the run ended with a descendant still holding it).
        }
    }

    /** Copies what is read from the pipe to the raw stream before it is decoded. */
    private static final class Tee extends FilterInputStream {
        private OutputStream raw;

        Tee(InputStream in, OutputStream raw) {
            super(in);
            this.raw = raw;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0 && raw != null) {
                try {
                    raw.write(b, off, n);
                    raw.flush();
                } catch (IOException e) {
                    // Whoever read the pass-through went away; the events go on.
                    raw = null;
                }
            }
            return n;
        }
    }

    private static String stripCr(StringBuilder sb) {
        int n = sb.length();
        return n > 0 && sb.charAt(n - 1) == '\r' ? sb.substring(0, n - 1) : sb.toString();
    }
}
