package dev.magus.server;

import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A forwarded run's standard input: the client's stdin frames, queued by the event loop (which
 * never waits) and read by the run's I/O thread (which may). Not a {@link java.io.PipedInputStream}:
 * that one declares the pipe broken when the thread that last wrote is gone.
 */
final class StdinQueue extends InputStream {
    private static final byte[] END = new byte[0];

    private final LinkedBlockingQueue<byte[]> chunks = new LinkedBlockingQueue<>();
    private byte[] current = new byte[0];
    private int pos;
    private boolean ended;

    void offer(byte[] bytes) {
        if (bytes.length > 0) {
            chunks.add(bytes);
        }
    }

    void end() {
        chunks.add(END);
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public synchronized int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        while (pos >= current.length) {
            if (ended) {
                return -1;
            }
            try {
                current = chunks.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("stdin");
            }
            pos = 0;
            if (current == END) {
                ended = true;
                return -1;
            }
        }
        int n = Math.min(len, current.length - pos);
        System.arraycopy(current, pos, b, off, n);
        pos += n;
        return n;
    }
}
