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
        InputStream source = raw.<InputStream>map(r -> new Tee(in, r)).orElse(in);
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
