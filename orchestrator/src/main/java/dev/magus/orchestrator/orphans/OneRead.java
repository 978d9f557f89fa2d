package dev.magus.orchestrator.orphans;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.util.Optional;

/**
 * A {@code /proc} seq file read whole in one system call, or a doubt. The kernel fills one read
 * from a buffer of one page ({@code seq_read_iter}: {@code m->size = PAGE_SIZE}, grown only
 * for a single record that does not fit) and leaves the rest of the text for the next read, so
 * a long {@code children} list comes back cut at a page with nothing to say so. A read
 * that may have been cut that way, within {@link #MARGIN} of the smallest page, is a doubt; so
 * is one that fills the buffer (a larger page).
 */
final class OneRead {
    /** The buffer: the smallest page. */
    static final int SIZE = 4096;
    /** More than the longest record ("4194304 ", the largest pid and its space) a full page can lack. */
    static final int MARGIN = 64;

    private OneRead() {
    }

    /** The file's text from one {@code pread} at offset 0: the kernel builds a seq file's text anew. */
    static Optional<byte[]> atStart(FileChannel ch, ByteBuffer buf) {
        try {
            buf.clear();
            return text(ch.read(buf, 0), buf);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * The file's text from one {@code read}: the kernel builds a children list anew at each read
     * and resumes it by position, so the JDK's usual one-byte-first read could lose a pid.
     */
    static Optional<byte[]> once(ReadableByteChannel ch, ByteBuffer buf) throws IOException {
        buf.clear();
        return text(ch.read(buf), buf);
    }

    /** What one read of {@code n} bytes into {@code buf} gave; empty when it may have been cut (a doubt). */
    static Optional<byte[]> text(int n, ByteBuffer buf) {
        if (n >= SIZE - MARGIN || n >= buf.capacity()) {
            return Optional.empty();
        }
        byte[] text = new byte[Math.max(n, 0)];
        buf.flip();
        buf.get(text);
        return Optional.of(text);
    }
}
