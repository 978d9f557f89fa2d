package dev.magus.orchestrator.pipeline;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
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

    public static void pump(InputStream in, Consumer<String> line) {
        var decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, decoder), 16 * 1024)) {
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

    private static String stripCr(StringBuilder sb) {
        int n = sb.length();
        return n > 0 && sb.charAt(n - 1) == '\r' ? sb.substring(0, n - 1) : sb.toString();
    }
}
