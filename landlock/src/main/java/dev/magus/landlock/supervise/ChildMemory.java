package dev.magus.landlock.supervise;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import dev.magus.landlock.sys.Natives;
import dev.magus.landlock.sys.Syscalls;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a waiting caller's arguments, and its working directory and descriptors through
 * {@code /proc/PID/cwd} and {@code /proc/PID/fd/N}. One reader, on the supervisor's thread. The
 * memory is read with {@code process_vm_readv}, one call per page touched and no descriptor
 * kept; where the kernel lacks it (ENOSYS) through {@code /proc/PID/mem}, a descriptor kept per
 * thread id, since opening the file costs more than reading it: a kept one that reads nothing
 * (the process executed another program, or ended and its id was reused) is opened again once.
 * Whatever is read is trusted only once the notification is still valid (the answer to it, or
 * {@code SECCOMP_IOCTL_NOTIF_ID_VALID}, succeeded after the read).
 */
final class ChildMemory implements AutoCloseable {
    static final int PATH_MAX = 4096;
    private static final int PAGE = 4096;
    private static final int KEPT = 256;
    /** The first read of a string: most paths end within it, and a short copy is cheaper. */
    private static final int FIRST = 256;
    private static final int ENOSYS = 38;
    private final Map<Integer, FileChannel> open = new HashMap<>();
    private static final Syscalls SYS = Natives.require();
    private final Memory memory = new Memory(PATH_MAX);
    private final long bufferAddress = Pointer.nativeValue(memory);
    private final ByteBuffer buffer = memory.getByteBuffer(0, PATH_MAX);
    /** Two {@code struct iovec}: the local buffer, the caller's range. */
    private final Memory iov = new Memory(32);
    private final long iovAddress = Pointer.nativeValue(iov);
    private final byte[] bytes = new byte[PATH_MAX];
    /** A directory's path, then a path named beneath it: both read, joined and decoded once. */
    private final byte[] joined = new byte[2 * PATH_MAX];
    private final byte[] link = new byte[64];
    /** {@link #link} and the link's target in native memory, so that readlink copies nothing more. */
    private final Memory links = new Memory(64 + PATH_MAX);
    private final long linkAddress = Pointer.nativeValue(links);
    private boolean vmReadv = true;

    /** The NUL-terminated string at {@code address}, or empty when it cannot be read whole. */
    Optional<String> string(int pid, long address) {
        return Optional.ofNullable(stringOrNull(pid, address));
    }

    /** {@link #string}, null for empty. */
    String stringOrNull(int pid, long address) {
        if (address == 0) {
            return null;
        }
        if (vmReadv) {
            String s = vmString(pid, address);
            if (vmReadv) {
                return s;
            }
        }
        for (int attempt = 0; attempt < 2; attempt++) {
            Optional<String> s = readString(pid, address);
            if (s.isPresent()) {
                return s.get();
            }
            forget(pid);
        }
        return null;
    }

    /** {@code length} bytes at {@code address} (at most {@link #PATH_MAX}), or empty. */
    Optional<byte[]> bytes(int pid, long address, int length) {
        if (address == 0 || length <= 0 || length > PATH_MAX) {
            return Optional.empty();
        }
        if (vmReadv) {
            int got = 0;
            while (got < length) {
                int chunk = (int) Math.min(length - got, PAGE - Long.remainderUnsigned(address + got, PAGE));
                long n = vmRead(pid, address + got, got, chunk);
                if (n != chunk) {
                    if (!vmReadv) {
                        break;
                    }
                    return Optional.empty();
                }
                got += chunk;
            }
            if (vmReadv) {
                return Optional.of(memory.getByteArray(0, length));
            }
        }
        for (int attempt = 0; attempt < 2; attempt++) {
            try {
                FileChannel c = channel(pid);
                buffer.clear().limit(length);
                int n = c.read(buffer, address);
                if (n == length) {
                    byte[] out = new byte[length];
                    buffer.flip().get(out);
                    return Optional.of(out);
                }
            } catch (IOException | IllegalArgumentException e) {
                // not readable as it stands: once more with a fresh descriptor
            }
            forget(pid);
        }
        return Optional.empty();
    }

    /**
     * Reads {@code length} bytes of the caller's at {@code address} into the buffer at
     * {@code offset}, within one page (a range that crosses into an unmapped page would be cut at
     * the page): bytes read, or {@code -errno}; ENOSYS turns this reader to {@code /proc/PID/mem}.
     */
    private long vmRead(int pid, long address, int offset, int length) {
        iov.setLong(0, bufferAddress + offset);
        iov.setLong(8, length);
        iov.setLong(16, address);
        iov.setLong(24, length);
        long n = SYS.processVmReadv(pid, iovAddress, 1, iovAddress + 16, 1);
        if (n == -ENOSYS) {
            vmReadv = false;
        }
        return n;
    }

    /**
     * The path at {@code address} made absolute against the caller's {@code dirfd} (AT_FDCWD: its
     * working directory), or null when either cannot be read; one named absolute is as
     * {@link NotifiedCall#ownProc} makes it. The bytes are joined before one decoding.
     */
    String absolute(int pid, long address, int dirfd) {
        int n = address != 0 && vmReadv ? vmBytes(pid, address) : -1;
        if (n < 0) {
            if (address == 0 || vmReadv) {
                return null;
            }
            String named = stringOrNull(pid, address);
            if (named == null || named.startsWith("/")) {
                return named == null ? null : NotifiedCall.ownProc(pid, named);
            }
            String base = directoryOrNull(pid, dirfd);
            return base == null ? null : NotifiedCall.join(base, named);
        }
        if (n > 0 && bytes[0] == '/') {
            return NotifiedCall.ownProc(pid, new String(bytes, 0, n, StandardCharsets.UTF_8));
        }
        int at = link(pid, dirfd);
        if (at < 0) {
            return null;
        }
        if (n > 0) {
            // AT_EMPTY_PATH (n == 0): the directory itself.
            if (joined[at - 1] != '/') {
                joined[at++] = '/';
            }
            System.arraycopy(bytes, 0, joined, at, n);
            at += n;
        }
        return new String(joined, 0, at, StandardCharsets.UTF_8);
    }

    private String vmString(int pid, long address) {
        int n = vmBytes(pid, address);
        return n < 0 ? null : new String(bytes, 0, n, StandardCharsets.UTF_8);
    }

    /** Reads the NUL-terminated string at {@code address} into {@link #bytes}: its length, or -1. */
    private int vmBytes(int pid, long address) {
        int got = 0;
        long at = address;
        while (got < PATH_MAX) {
            // Up to the end of the page only: the next one may not be mapped.
            int chunk = (int) Math.min(Math.min(PATH_MAX - got, got == 0 ? FIRST : PAGE),
                    PAGE - Long.remainderUnsigned(at, PAGE));
            long n = vmRead(pid, at, got, chunk);
            if (n <= 0) {
                return -1;
            }
            memory.read(got, bytes, got, (int) n);
            for (int i = got; i < got + n; i++) {
                if (bytes[i] == 0) {
                    return i;
                }
            }
            got += (int) n;
            at += n;
        }
        return -1;
    }

    private Optional<String> readString(int pid, long address) {
        try {
            FileChannel c = channel(pid);
            buffer.clear();
            long at = address;
            while (buffer.hasRemaining()) {
                // Up to the end of the page only: the next one may not be mapped.
                int chunk = (int) Math.min(buffer.remaining(), PAGE - Long.remainderUnsigned(at, PAGE));
                int start = buffer.position();
                buffer.limit(start + chunk);
                int n = c.read(buffer, at);
                if (n <= 0) {
                    return Optional.empty();
                }
                for (int i = start; i < start + n; i++) {
                    if (buffer.get(i) == 0) {
                        byte[] out = new byte[i];
                        buffer.flip().get(out, 0, i);
                        return Optional.of(new String(out, StandardCharsets.UTF_8));
                    }
                }
                at += n;
                buffer.limit(buffer.capacity());
            }
            return Optional.empty();
        } catch (IOException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private FileChannel channel(int pid) throws IOException {
        FileChannel c = open.get(pid);
        if (c == null) {
            if (open.size() >= KEPT) {
                close();
            }
            c = FileChannel.open(Path.of("/proc", Integer.toString(pid), "mem"), StandardOpenOption.READ);
            open.put(pid, c);
        }
        return c;
    }

    private void forget(int pid) {
        FileChannel c = open.remove(pid);
        if (c != null) {
            try {
                c.close();
            } catch (IOException e) {
                // nothing held
            }
        }
    }

    /**
     * Where the caller's working directory ({@code dirfd} AT_FDCWD) or its descriptor
     * {@code dirfd} is: {@code readlink} of {@code /proc/PID/cwd} or {@code /proc/PID/fd/N}.
     */
    Optional<String> directory(int pid, int dirfd) {
        return Optional.ofNullable(directoryOrNull(pid, dirfd));
    }

    /** {@link #directory}, null for empty. */
    String directoryOrNull(int pid, int dirfd) {
        int n = link(pid, dirfd);
        return n < 0 ? null : new String(joined, 0, n, StandardCharsets.UTF_8);
    }

    /** Reads the directory's path into {@link #joined}: its length, or -1. */
    private int link(int pid, int dirfd) {
        int n = ascii(link, 0, "/proc/");
        n = decimal(link, n, pid);
        if (dirfd == AT_FDCWD) {
            n = ascii(link, n, "/cwd");
        } else {
            n = ascii(link, n, "/fd/");
            n = decimal(link, n, dirfd);
        }
        link[n] = 0;
        links.write(0, link, 0, n + 1);
        long got = SYS.readlinkat(AT_FDCWD, linkAddress, linkAddress + 64, PATH_MAX);
        if (got <= 0 || got >= PATH_MAX) {
            return -1;
        }
        links.read(64, joined, 0, (int) got);
        return (int) got;
    }

    private static int ascii(byte[] into, int at, String s) {
        for (int i = 0; i < s.length(); i++) {
            into[at++] = (byte) s.charAt(i);
        }
        return at;
    }

    /** {@code value} in decimal; a negative one (no descriptor) as its digits after a {@code -}. */
    private static int decimal(byte[] into, int at, int value) {
        long v = value;
        if (v < 0) {
            into[at++] = '-';
            v = -v;
        }
        int end = at + 1;
        for (long rest = v / 10; rest > 0; rest /= 10) {
            end++;
        }
        for (int i = end - 1; i >= at; i--) {
            into[i] = (byte) ('0' + v % 10);
            v /= 10;
        }
        return end;
    }

    /** The process of thread {@code tid} ({@code Tgid:} of its status), or empty when it is gone. */
    static Optional<Integer> tgid(int tid) {
        try (java.util.stream.Stream<String> lines = java.nio.file.Files.lines(Path.of("/proc", Integer.toString(tid),
                "status"))) {
            return lines.filter(l -> l.startsWith("Tgid:")).findFirst().map(l -> Integer.parseInt(l.substring(5).strip()));
        } catch (IOException | java.io.UncheckedIOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    static final int AT_FDCWD = -100;

    @Override
    public void close() {
        for (FileChannel c : open.values()) {
            try {
                c.close();
            } catch (IOException e) {
                // nothing held
            }
        }
        open.clear();
    }
}
