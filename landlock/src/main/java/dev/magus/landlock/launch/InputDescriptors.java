package dev.magus.landlock.launch;

import dev.magus.landlock.sys.Errno;
import dev.magus.landlock.sys.FdStat;
import dev.magus.landlock.sys.LibC;
import dev.magus.landlock.sys.Natives;
import dev.magus.landlock.sys.Syscalls;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Whether a descriptor may be a child's standard input as it is ({@link Stdio.InputFrom}): one
 * open for reading on a regular file, a pipe, a socket, a terminal or {@code /dev/null}. Anything
 * else (a directory, an {@code O_PATH} or write-only descriptor, another device, an epoll or event
 * descriptor) is not an input a command reads, and one handed over from elsewhere (a forwarded
 * client's) is refused rather than given to the child.
 */
public final class InputDescriptors {
    private static final int S_IFMT = 0170000;
    static final int S_IFREG = 0100000;
    static final int S_IFIFO = 0010000;
    static final int S_IFSOCK = 0140000;
    static final int S_IFCHR = 0020000;
    static final int S_IFDIR = 0040000;
    static final int O_ACCMODE = 3;
    static final int O_WRONLY = 1;
    static final int O_PATH = 010000000;
    private static final int F_GETFL = 3;
    private static final long TCGETS = 0x5401;
    /** Room for a {@code struct termios}; only whether the call succeeds counts. */
    private static final int TERMIOS_BYTES = 64;

    private InputDescriptors() {
    }

    /** Why {@code fd} may not be a child's standard input; empty when it may. */
    public static Optional<String> refusal(int fd) {
        Syscalls sys = Natives.syscalls();
        if (!sys.available()) {
            return Optional.of("descriptors cannot be checked here: " + sys.unavailableReason());
        }
        long flags = sys.fcntl(fd, F_GETFL, 0);
        OptionalInt mode = FdStat.mode(fd);
        if (flags < 0 || mode.isEmpty()) {
            return Optional.of("descriptor " + fd + " is not open");
        }
        boolean chr = (mode.getAsInt() & S_IFMT) == S_IFCHR;
        return refusal(mode.getAsInt(), (int) flags, chr && terminal(sys, fd), chr && devNull(sys, fd));
    }

    /**
     * The decision as a value: {@code mode} is the descriptor's {@code st_mode}, {@code flags} its
     * status flags ({@code F_GETFL}); a character device passes only as a terminal or {@code /dev/null}.
     */
    static Optional<String> refusal(int mode, int flags, boolean terminal, boolean devNull) {
        if ((flags & O_PATH) != 0) {
            return Optional.of("an O_PATH descriptor, which reads nothing");
        }
        if ((flags & O_ACCMODE) == O_WRONLY) {
            return Optional.of("a descriptor open for writing only");
        }
        switch (mode & S_IFMT) {
            case S_IFREG, S_IFIFO, S_IFSOCK:
                return Optional.empty();
            case S_IFCHR:
                return terminal || devNull ? Optional.empty()
                        : Optional.of("a character device that is neither a terminal nor /dev/null");
            case S_IFDIR:
                return Optional.of("a directory");
            default:
                return Optional.of("neither a file, a pipe, a socket nor a terminal (mode 0" + Integer.toOctalString(mode)
                        + ")");
        }
    }

    /** What a peer passed over a Unix socket for a child's standard input ({@link #receive}). */
    public sealed interface Received {
        /** One descriptor that may be a child's standard input, the receiver's to close. */
        record Descriptor(int fd) implements Received {
        }

        /** The marker without a descriptor: the peer sends its input some other way. */
        record None() implements Received {
        }

        /** Nothing usable, and why; whatever arrived is closed already. */
        record Refused(String why) implements Received {
        }
    }

    /** The byte a descriptor travels with (a frame's first byte is never it: frames are under 16 MiB). */
    public static final byte MARKER = 'F';
    private static final int MSG_DONTWAIT = 0x40;
    private static final int MSG_CTRUNC = 0x8;
    private static final int MSG_CMSG_CLOEXEC = 0x40000000;
    private static final int SOL_SOCKET = 1;
    private static final int SCM_RIGHTS = 1;
    private static final short POLLIN = 1;
    /** Room for a few descriptors, so that more than one is seen (and closed), not cut off unseen. */
    private static final int CONTROL_BYTES = 64;

    /**
     * Receives, on the connected Unix socket {@code socket}, the one byte {@link #MARKER} and the
     * descriptor passed with it ({@code SCM_RIGHTS}), waiting up to {@code timeoutMillis} for it.
     * Blocks the calling thread; the socket's other reader must not read meanwhile. More than one
     * descriptor, another byte, a descriptor that may not be a child's standard input
     * ({@link #refusal(int)}), the peer's end or the time running out are {@link Received.Refused},
     * with every descriptor that came closed. Received close-on-exec: the descriptor reaches a
     * child only through its spawn's {@code dup2}.
     */
    public static Received receive(int socket, long timeoutMillis) {
        Syscalls sys = Natives.syscalls();
        if (!sys.available()) {
            return new Received.Refused("descriptors cannot be received here: " + sys.unavailableReason());
        }
        // pollfd (8) | timespec (16) | msghdr (56) | iovec (16) | the byte (8) | control
        try (com.sun.jna.Memory m = new com.sun.jna.Memory(8 + 16 + 56 + 16 + 8 + CONTROL_BYTES)) {
            m.clear();
            long base = com.sun.jna.Pointer.nativeValue(m);
            long pollfd = base;
            long timespec = base + 8;
            long msghdr = base + 24;
            long iovec = base + 80;
            long data = base + 96;
            long control = base + 104;
            m.setInt(0, socket);
            m.setShort(4, POLLIN);
            m.setLong(8, timeoutMillis / 1000);
            m.setLong(16, (timeoutMillis % 1000) * 1_000_000);
            long ready;
            do {
                ready = sys.ppoll(pollfd, 1, timespec);
            } while (ready == -4 /* EINTR */);
            if (ready <= 0) {
                return new Received.Refused(ready == 0 ? "no descriptor within " + timeoutMillis + " ms"
                        : "poll: " + Errno.describe((int) -ready));
            }
            m.setLong(iovec - base, data);
            m.setLong(iovec - base + 8, 1);
            m.setLong(msghdr - base + 16, iovec); // msg_iov
            m.setLong(msghdr - base + 24, 1); // msg_iovlen
            m.setLong(msghdr - base + 32, control); // msg_control
            m.setLong(msghdr - base + 40, CONTROL_BYTES); // msg_controllen
            long n = sys.recvmsg(socket, msghdr, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
            java.util.List<Integer> fds = new java.util.ArrayList<>();
            long controlLen = n > 0 ? m.getLong(msghdr - base + 40) : 0;
            for (long off = 0; off + 16 <= controlLen; ) {
                long len = m.getLong(control - base + off);
                if (len < 16 || off + len > controlLen) {
                    break;
                }
                if (m.getInt(control - base + off + 8) == SOL_SOCKET && m.getInt(control - base + off + 12) == SCM_RIGHTS) {
                    for (long at = 16; at + 4 <= len; at += 4) {
                        fds.add(m.getInt(control - base + off + at));
                    }
                }
                off += (len + 7) & ~7L;
            }
            boolean truncated = n > 0 && (m.getInt(msghdr - base + 48) & MSG_CTRUNC) != 0;
            String why = n < 0 ? "recvmsg: " + Errno.describe((int) -n)
                    : n == 0 ? "the peer closed the connection"
                    : m.getByte(data - base) != MARKER ? "a byte other than the descriptor's marker"
                    : fds.size() > 1 || truncated ? "more than one descriptor (one is the most a run takes)"
                    : fds.isEmpty() ? null
                    : refusal(fds.get(0)).orElse(null);
            if (why != null) {
                fds.forEach(sys::close);
                return new Received.Refused(why);
            }
            return fds.isEmpty() ? new Received.None() : new Received.Descriptor(fds.get(0));
        }
    }

    /** Closes a descriptor {@link #receive} handed over. */
    public static void close(int fd) {
        Natives.syscalls().close(fd);
    }

    private static boolean terminal(Syscalls sys, int fd) {
        try (com.sun.jna.Memory termios = new com.sun.jna.Memory(TERMIOS_BYTES)) {
            return sys.ioctl(fd, TCGETS, com.sun.jna.Pointer.nativeValue(termios)) == 0;
        }
    }

    private static boolean devNull(Syscalls sys, int fd) {
        int nul = sys.open("/dev/null\0".getBytes(StandardCharsets.US_ASCII), LibC.O_RDONLY | LibC.O_CLOEXEC, 0);
        if (nul < 0) {
            return false;
        }
        try {
            long[] it = FdStat.identity(nul);
            return it != null && Arrays.equals(it, FdStat.identity(fd));
        } finally {
            sys.close(nul);
        }
    }
}
