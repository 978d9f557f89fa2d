package dev.magus.landlock.launch;

import com.sun.jna.Memory;
import dev.magus.landlock.sys.Errno;
import dev.magus.landlock.sys.Natives;
import dev.magus.landlock.sys.Syscalls;
import dev.magus.policy.cleaner.SharedCleaner;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Objects;

/**
 * Java streams over a pipe descriptor, through {@code read}/{@code write}. A descriptor is
 * closed exactly once, and never while another thread is inside a call on it (closing under a
 * blocked read would let the number be reused under it): a close during a call is deferred to
 * the call's end.
 */
final class FdStreams {
    private static final Syscalls SYS = Natives.syscalls();

    private FdStreams() {
    }

    private static final int BUFFER = 16 * 1024;

    /** Owns one descriptor. */
    static final class Fd implements Runnable {
        private int fd;
        private int inUse;
        private boolean closeRequested;

        Fd(int fd) {
            this.fd = fd;
        }

        synchronized int enter() throws IOException {
            if (closeRequested || fd < 0) {
                throw new IOException("stream closed");
            }
            inUse++;
            return fd;
        }

        synchronized void exit() {
            inUse--;
            if (closeRequested && inUse == 0) {
                doClose();
            }
        }

        @Override
        public void run() {
            close();
        }

        synchronized void close() {
            closeRequested = true;
            if (inUse == 0) {
                doClose();
            }
        }

        private void doClose() {
            if (fd >= 0) {
                SYS.close(fd);
                fd = -1;
            }
        }
    }

    static final class In extends InputStream {
        private final Fd fd;
        private Memory buffer;

        In(int fd) {
            this.fd = new Fd(fd);
            // Closes the descriptor of a stream dropped unclosed, as FileInputStream does.
            SharedCleaner.CLEANER.register(this, this.fd);
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public synchronized int read(byte[] b, int off, int len) throws IOException {
            Objects.checkFromIndexSize(off, len, b.length);
            if (len == 0) {
                return 0;
            }
            if (buffer == null) {
                buffer = new Memory(BUFFER);
            }
            int d = fd.enter();
            try {
                while (true) {
                    long n = SYS.read(d, buffer, Math.min(len, BUFFER));
                    if (n > 0) {
                        buffer.read(0, b, off, (int) n);
                        return (int) n;
                    }
                    if (n == 0) {
                        return -1;
                    }
                    int errno = SYS.errno();
                    if (errno != Errno.EINTR) {
                        throw new IOException("read from child: " + Errno.describe(errno));
                    }
                }
            } finally {
                fd.exit();
            }
        }

        @Override
        public void close() {
            fd.close();
        }
    }

    static final class Out extends OutputStream {
        private final Fd fd;
        private Memory buffer;

        Out(int fd) {
            this.fd = new Fd(fd);
            // Closes the descriptor of a stream dropped unclosed, as FileOutputStream does.
            SharedCleaner.CLEANER.register(this, this.fd);
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws IOException {
            Objects.checkFromIndexSize(off, len, b.length);
            if (buffer == null) {
                buffer = new Memory(BUFFER);
            }
            int d = fd.enter();
            try {
                while (len > 0) {
                    int chunk = Math.min(len, BUFFER);
                    buffer.write(0, b, off, chunk);
                    int done = 0;
                    while (done < chunk) {
                        long n = SYS.write(d, buffer.share(done), chunk - done);
                        if (n >= 0) {
                            done += (int) n;
                            continue;
                        }
                        int errno = SYS.errno();
                        if (errno != Errno.EINTR) {
                            throw new IOException("write to child: " + Errno.describe(errno));
                        }
                    }
                    off += chunk;
                    len -= chunk;
                }
            } finally {
                fd.exit();
            }
        }

        @Override
        public void close() {
            fd.close();
        }
    }

    /** A stream for a descriptor the child does not have: always at end, refuses writes. */
    static InputStream emptyInput() {
        return InputStream.nullInputStream();
    }

    static OutputStream closedOutput() {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("the child's standard input is not a pipe");
            }
        };
    }
}
