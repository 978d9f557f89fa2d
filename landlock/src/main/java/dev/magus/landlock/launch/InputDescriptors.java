package dev.magus.landlock.launch;

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
