package dev.magus.orchestrator.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A pipe's bytes, as the reads of it return them, pass through and become lines, in an order a reader can rely on. */
class OutputPumpTest {

    /** A pipe whose reads return exactly these chunks, then its end. */
    static InputStream reads(byte[]... chunks) {
        Deque<byte[]> left = new ArrayDeque<>(List.of(chunks));
        return new InputStream() {
            @Override
            public int read() {
                throw new UnsupportedOperationException("the pump reads in chunks");
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (left.isEmpty()) {
                    return -1;
                }
                byte[] c = left.poll();
                assertThat(c.length).isLessThanOrEqualTo(len);
                System.arraycopy(c, 0, b, off, c.length);
                return c.length;
            }
        };
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** What happened, in order: "pass <bytes>" for each pass-through write, "line <text>" for each line. */
    static List<String> pump(InputStream in) {
        List<String> log = new ArrayList<>();
        OutputStream raw = new OutputStream() {
            @Override
            public void write(int x) {
                throw new UnsupportedOperationException("the pump writes in chunks");
            }

            @Override
            public void write(byte[] bytes, int off, int len) {
                log.add("pass " + new String(bytes, off, len, StandardCharsets.UTF_8));
            }
        };
        OutputPump.pump(in, Optional.of(raw), l -> log.add("line " + l), new OutputPump.Progress(1));
        return log;
    }

    @Test
    void aLinesEventComesAfterItsBytesAndBeforeTheStartOfTheNextLine() {
        // A tool that writes its message in pieces (GNU cat's "cat: NAME" then ": No such file"):
        // what magus says about the first line must not land inside the second.
        List<String> log = pump(reads(b("cat: a: Permission denied\ncat: 'b'"), b(": No such file or directory\n")));
        assertThat(log).containsExactly(
                "pass cat: a: Permission denied\n",
                "line cat: a: Permission denied",
                "pass cat: 'b'",
                "pass : No such file or directory\n",
                "line cat: 'b': No such file or directory");
    }

    @Test
    void aPromptWithoutItsNewlinePassesThroughAtOnceAndIsALineAtTheEnd() {
        List<String> log = pump(reads(b("one\r\ntwo\n"), b("Password: ")));
        assertThat(log).containsExactly("pass one\r\ntwo\n", "line one", "line two", "pass Password: ", "line Password: ");
    }

    @Test
    void aMalformedByteIsReplacedInTheLineAndPassesThroughAsItself() {
        List<String> bytes = new ArrayList<>();
        List<String> lines = new ArrayList<>();
        byte[] chunk = {'a', (byte) 0xff, 'b', '\n'};
        OutputPump.pump(reads(chunk), Optional.of(new OutputStream() {
            @Override
            public void write(int x) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void write(byte[] x, int off, int len) {
                bytes.add(java.util.HexFormat.of().formatHex(x, off, off + len));
            }
        }), lines::add, new OutputPump.Progress(1));
        assertThat(bytes).containsExactly("61ff620a");
        assertThat(lines).containsExactly("a\ufffdb");
    }

    @Test
    void aLineLongerThanTheCapIsCutBeforeACharacterItWouldSplit() {
        // One byte short of the cap, then a three-byte character across it: the cut keeps it whole.
        String head = "x".repeat(OutputPump.MAX_LINE - 1);
        byte[] all = b(head + "\u20ac" + "tail\n");
        List<byte[]> chunks = new ArrayList<>();
        for (int i = 0; i < all.length; i += 8192) {
            chunks.add(java.util.Arrays.copyOfRange(all, i, Math.min(all.length, i + 8192)));
        }
        List<String> lines = new ArrayList<>();
        OutputPump.pump(reads(chunks.toArray(new byte[0][])), Optional.empty(), lines::add, new OutputPump.Progress(1));
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0).length()).isEqualTo(head.length());
        assertThat(lines.get(0).equals(head)).as("the first line is the x's alone").isTrue();
        assertThat(lines.get(1)).isEqualTo("\u20actail");
    }
}
