package dev.magus.landlock.sys;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.util.Arrays;

/**
 * An {@code O_PATH} descriptor for an already resolved path, refused when any component of it
 * is a symbolic link now. A rule's path is resolved when the policy is built and opened later;
 * between the two a confined run of another job (the server runs several at once) may swap a
 * directory it can write for a link. Opening the resolved spelling with links followed would then
 * grant the link's target, so the kernel is told to follow none:
 * {@code openat2(path, O_PATH|O_CLOEXEC, RESOLVE_NO_SYMLINKS)}, ELOOP when a component is a
 * link. Where {@code openat2} is missing (ENOSYS, a kernel before 5.6 or a seccomp filter that
 * hides it) it opens the path as it is and reads back where the descriptor landed
 * ({@code /proc/self/fd/N}): any other name than the one asked for means a link on the way
 * (at any component, the last one too), and the descriptor is closed. Not {@code O_NOFOLLOW}:
 * with {@code O_PATH} that opens a last-component link itself, under the very name asked for.
 */
public final class NoLinkOpen {
    private static final long AT_FDCWD = -100;
    private static final long RESOLVE_NO_SYMLINKS = 0x04;
    private static final int OPEN_HOW = 24;
    private static volatile boolean noOpenat2;

    private NoLinkOpen() {
    }

    /** The descriptor, or {@code -errno}: ELOOP when a component is a symbolic link, ENAMETOOLONG when it cannot be encoded. */
    public static int open(String absolutePath) {
        byte[] path = JvmNames.encode(absolutePath);
        if (path == null) {
            return -Errno.ENAMETOOLONG;
        }
        Syscalls sys = Natives.syscalls();
        if (!noOpenat2) {
            int fd = openat2(sys, path);
            if (fd != -Errno.ENOSYS) {
                return fd;
            }
            noOpenat2 = true;
        }
        return openAndCheck(sys, path);
    }

    private static int openat2(Syscalls sys, byte[] path) {
        if (path.length > JvmNames.PATH_MAX) {
            return -Errno.ENAMETOOLONG;
        }
        // One native buffer per thread, its open_how written once: no Memory (malloc and a
        // cleaner) per rule of every compile.
        Memory m = REQUEST.get();
        m.write(OPEN_HOW, path, 0, path.length);
        long base = Pointer.nativeValue(m);
        return (int) sys.openat2(AT_FDCWD, base + OPEN_HOW, base, OPEN_HOW);
    }

    /** {@code struct open_how} (O_PATH|O_CLOEXEC, RESOLVE_NO_SYMLINKS), then room for any path and its NUL. */
    private static final ThreadLocal<Memory> REQUEST = ThreadLocal.withInitial(() -> {
        Memory m = new Memory(OPEN_HOW + JvmNames.PATH_MAX);
        m.setLong(0, LibC.O_PATH | LibC.O_CLOEXEC);
        m.setLong(8, 0);
        m.setLong(16, RESOLVE_NO_SYMLINKS);
        return m;
    });

    /**
     * {@code absolutePath} opened as a caller asked ({@code flags}, {@code mode} and its own
     * {@code openat2} resolve flags), following no link on the way: the descriptor, or
     * {@code -errno} (ELOOP when a component is a link now). No fallback: without {@code openat2}
     * nothing is opened (ENOSYS). The descriptor is magus's own, close-on-exec.
     */
    public static int openAsAsked(String absolutePath, long flags, long mode, long resolve) {
        byte[] path = JvmNames.encode(absolutePath);
        if (path == null || path.length > JvmNames.PATH_MAX) {
            return -Errno.ENAMETOOLONG;
        }
        try (Memory m = new Memory(OPEN_HOW + path.length)) {
            m.setLong(0, flags | LibC.O_CLOEXEC);
            // openat2 refuses a mode without a create (EINVAL).
            m.setLong(8, (flags & (O_CREAT | O_TMPFILE)) != 0 ? mode & 07777 : 0);
            m.setLong(16, resolve | RESOLVE_NO_SYMLINKS);
            m.write(OPEN_HOW, path, 0, path.length);
            long base = Pointer.nativeValue(m);
            return (int) Natives.syscalls().openat2(AT_FDCWD, base + OPEN_HOW, base, OPEN_HOW);
        }
    }

    private static final long O_CREAT = 0100;
    private static final long O_TMPFILE = 020000000;

    /** Package-private for the test of the fallback, which this kernel would otherwise never take. */
    static int openAndCheck(Syscalls sys, byte[] path) {
        int fd = sys.open(path, LibC.O_PATH | LibC.O_CLOEXEC, 0);
        if (fd < 0) {
            return -sys.errno();
        }
        byte[] link = ("/proc/self/fd/" + fd + "\0").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] target = new byte[JvmNames.PATH_MAX + 1];
        long n = sys.readlink(link, target, target.length);
        // path ends with its NUL: the name read back must be exactly the bytes before it.
        if (n != path.length - 1 || !Arrays.equals(target, 0, (int) n, path, 0, path.length - 1)) {
            sys.close(fd);
            return n < 0 ? -sys.errno() : -Errno.ELOOP;
        }
        return fd;
    }
}
