package dev.magus.landlock.sys;

import com.sun.jna.Memory;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;
import java.util.OptionalInt;

/**
 * The mode of an open descriptor, an {@code O_PATH} one included:
 * {@code fstatat(fd, "", AT_EMPTY_PATH)}, the inode the descriptor holds whatever its path names
 * now. The same answer as a stat of {@code /proc/self/fd/FD}, without the kernel's walk of
 * {@code /proc} (once per Landlock rule, for every run of a server).
 */
public final class FdStat {
    private static final boolean X86_64 = Platform.ARCH.equals("x86-64");
    private static final long AT_EMPTY_PATH = 0x1000;
    /** {@code st_mode} in {@code struct stat} as the architecture lays it out. */
    private static final int ST_MODE = X86_64 ? 24 : 16;
    private static final int STAT_SIZE = 256;
    /** The stat buffer, then one byte for the empty path (its NUL); one per thread. */
    private static final ThreadLocal<Memory> BUFFER = ThreadLocal.withInitial(() -> new Memory(STAT_SIZE + 8));

    private FdStat() {
    }

    /**
     * The file the descriptor is open on, as {@code st_dev} and {@code st_ino} (the first two
     * fields of {@code struct stat} on x86_64 and aarch64); null when it cannot be had.
     */
    public static long[] identity(int fd) {
        if (fd < 0) {
            return null;
        }
        try {
            Memory b = BUFFER.get();
            b.setByte(STAT_SIZE, (byte) 0);
            long base = Pointer.nativeValue(b);
            long r = Natives.syscalls().fstatat(fd, base + STAT_SIZE, base, AT_EMPTY_PATH);
            return r == 0 ? new long[] {b.getLong(0), b.getLong(8)} : null;
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }

    /** The descriptor's {@code st_mode}; empty when it cannot be had (the natives, a closed descriptor). */
    public static OptionalInt mode(int fd) {
        if (fd < 0) {
            return OptionalInt.empty();
        }
        try {
            Memory b = BUFFER.get();
            b.setByte(STAT_SIZE, (byte) 0);
            long base = Pointer.nativeValue(b);
            long r = Natives.syscalls().fstatat(fd, base + STAT_SIZE, base, AT_EMPTY_PATH);
            return r == 0 ? OptionalInt.of(b.getInt(ST_MODE)) : OptionalInt.empty();
        } catch (RuntimeException | LinkageError e) {
            return OptionalInt.empty();
        }
    }
}
