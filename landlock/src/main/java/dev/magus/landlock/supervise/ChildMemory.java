package dev.magus.landlock.supervise;

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
 * Reads a waiting caller's arguments through {@code /proc/PID/mem}, and its working directory
 * and descriptors through {@code /proc/PID/cwd} and {@code /proc/PID/fd/N}. One reader, on the
 * supervisor's thread: a descriptor per thread id is kept, since opening the file costs more than
 * reading it. A kept one that reads nothing (the process executed another program, or ended
 * and its id was reused) is opened again once; whatever is read is trusted only once the
 * notification is still valid ({@code SECCOMP_IOCTL_NOTIF_ID_VALID}).
 */
final class ChildMemory implements AutoCloseable {
    static final int PATH_MAX = 4096;
    private static final int PAGE = 4096;
    private static final int KEPT = 256;
    private final Map<Integer, FileChannel> open = new HashMap<>();
    private static final Syscalls SYS = Natives.require();
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(PATH_MAX);
    private final byte[] target = new byte[PATH_MAX];

    /** The NUL-terminated string at {@code address}, or empty when it cannot be read whole. */
    Optional<String> string(int pid, long address) {
        if (address == 0) {
            return Optional.empty();
        }
        for (int attempt = 0; attempt < 2; attempt++) {
            Optional<String> s = readString(pid, address);
            if (s.isPresent()) {
                return s;
            }
            forget(pid);
        }
        return Optional.empty();
    }

    /** {@code length} bytes at {@code address} (at most {@link #PATH_MAX}), or empty. */
    Optional<byte[]> bytes(int pid, long address, int length) {
        if (address == 0 || length <= 0 || length > PATH_MAX) {
            return Optional.empty();
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
        String link = dirfd == AT_FDCWD ? "/proc/" + pid + "/cwd" : "/proc/" + pid + "/fd/" + dirfd;
        byte[] name = (link + '\0').getBytes(StandardCharsets.US_ASCII);
        long n = SYS.readlink(name, target, target.length);
        if (n <= 0 || n >= target.length) {
            return Optional.empty();
        }
        return Optional.of(new String(target, 0, (int) n, StandardCharsets.UTF_8));
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
