package dev.magus.landlock.sys;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The bytes of {@code /proc/self/mountinfo}, read again only when the kernel says the mount
 * table changed (issue 15: every run of a server read it whole, five system calls and a
 * parse, to learn what the last run had learnt).
 *
 * <p>One descriptor of the file stays open. The kernel notes the namespace's mount event
 * count when the file is opened and at each {@code poll} of it, and reports
 * {@code POLLERR | POLLPRI} when the count moved since ({@code fs/proc_namespace.c},
 * {@code mounts_poll}; {@code proc_pid_mounts(5)}): every mount, unmount, move or propagated
 * mount in the namespace moves it. So: {@code ppoll} with a zero timeout; no event, and the
 * bytes read through this very descriptor after it was opened are still the table; an event,
 * and the descriptor is closed, a new one opened and the table read through it (a change
 * between that open and the read is reported by the next poll, since the count was noted at
 * the open). Any error, or an answer that is not exactly "readable, nothing else", and the
 * table is read as before (a fresh open, no memory kept): never a stale table.
 *
 * <p>Thread-safe: one lock around the poll and the read (a poll consumes the event).
 */
final class MountTable {
    private static final Path FILE = Path.of("/proc/self/mountinfo");
    private static final byte[] FILE_C = "/proc/self/mountinfo\0".getBytes(StandardCharsets.US_ASCII);
    static final short POLLIN = 0x1;
    static final short POLLPRI = 0x2;
    static final short POLLERR = 0x8;
    static final short POLLRDNORM = 0x40;
    private static final int CHUNK = 64 * 1024;

    private static final Object LOCK = new Object();
    /** The open descriptor whose polls say whether {@link #bytes} still holds; -1 when none. */
    private static int fd = -1;
    private static byte[] bytes;
    /** How many times the table was read (for tests). */
    private static long reads;
    private static final Memory POLLFD = new Memory(8);
    private static final Memory ZERO_TIMEOUT = new Memory(16);

    private MountTable() {
    }

    /**
     * The mount table now, as {@link Files#readAllBytes} of {@code /proc/self/mountinfo} gives it.
     *
     * @throws IOException when it cannot be read
     */
    static byte[] current() throws IOException {
        Syscalls sys = Natives.syscalls();
        if (!sys.available()) {
            return Files.readAllBytes(FILE);
        }
        synchronized (LOCK) {
            if (fd >= 0 && unchanged(sys)) {
                return bytes;
            }
            forget(sys);
            int f = sys.open(FILE_C, LibC.O_RDONLY | LibC.O_CLOEXEC, 0);
            if (f < 0) {
                reads++;
                return Files.readAllBytes(FILE);
            }
            byte[] read = readAll(sys, f);
            reads++;
            if (read == null) {
                sys.close(f);
                return Files.readAllBytes(FILE);
            }
            fd = f;
            bytes = read;
            return read;
        }
    }

    /** How many times {@link #current} read the table (not answered from the last read). */
    static long reads() {
        synchronized (LOCK) {
            return reads;
        }
    }

    /** Whether a zero-timeout poll of {@link #fd} says only "readable": the table did not change since. */
    private static boolean unchanged(Syscalls sys) {
        POLLFD.setInt(0, fd);
        POLLFD.setShort(4, (short) (POLLIN | POLLPRI));
        POLLFD.setShort(6, (short) 0);
        ZERO_TIMEOUT.setLong(0, 0);
        ZERO_TIMEOUT.setLong(8, 0);
        long r = sys.ppoll(Pointer.nativeValue(POLLFD), 1, Pointer.nativeValue(ZERO_TIMEOUT));
        if (r != 1) {
            return false;
        }
        short revents = POLLFD.getShort(6);
        return (revents & ~(POLLIN | POLLRDNORM)) == 0 && (revents & POLLIN) != 0;
    }

    private static void forget(Syscalls sys) {
        if (fd >= 0) {
            sys.close(fd);
        }
        fd = -1;
        bytes = null;
    }

    /** Everything {@code f} reads until its end; null on an error. */
    private static byte[] readAll(Syscalls sys, int f) {
        Memory buffer = new Memory(CHUNK);
        byte[] chunk = new byte[CHUNK];
        ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
        while (true) {
            long n = sys.read(f, buffer, CHUNK);
            if (n < 0) {
                if (sys.errno() == Errno.EINTR) {
                    continue;
                }
                return null;
            }
            if (n == 0) {
                return out.toByteArray();
            }
            buffer.read(0, chunk, 0, (int) n);
            out.write(chunk, 0, (int) n);
        }
    }
}
