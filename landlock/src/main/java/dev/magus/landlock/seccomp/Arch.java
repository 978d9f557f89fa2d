package dev.magus.landlock.seccomp;

import java.util.Locale;
import java.util.Optional;

/**
 * The architectures magus confines on, with what the filter needs of each: the
 * {@code AUDIT_ARCH_*} value the kernel puts in {@code seccomp_data.arch}, and the system call
 * numbers it checks. A system call made under any other architecture's convention (an i386
 * {@code int 0x80} from an x86_64 process, whose {@code socketcall} the socket rules would not
 * see) ends the process.
 */
public enum Arch {
    /** {@code x32} system calls (bit 30 set) share the arch value and are refused by number. */
    X86_64(0xC000003E, 41, 53, true, 257, 91, 268, 259, new int[] {2, 85, 90, 133}),
    /** The generic table: no {@code open}, {@code creat}, {@code chmod} or {@code mknod} ({@link #NONE}). */
    AARCH64(0xC00000B7, 198, 199, false, 56, 52, 53, 33, new int[] {-1, -1, -1, -1});

    /** A system call the architecture does not have. */
    public static final int NONE = -1;

    /** {@code __X32_SYSCALL_BIT}. */
    public static final int X32_SYSCALL_BIT = 0x40000000;
    /** {@code io_uring_setup}, {@code _enter}, {@code _register}: the same numbers on both. */
    public static final int IO_URING_SETUP = 425;
    public static final int IO_URING_ENTER = 426;
    public static final int IO_URING_REGISTER = 427;
    /** {@code openat2} and {@code fchmodat2}: the same numbers on both. */
    public static final int OPENAT2 = 437;
    public static final int FCHMODAT2 = 452;

    private final int auditArch;
    private final int socket;
    private final int socketpair;
    private final boolean hasX32;
    private final int openat;
    private final int fchmod;
    private final int fchmodat;
    private final int mknodat;
    private final int open;
    private final int creat;
    private final int chmod;
    private final int mknod;

    Arch(int auditArch, int socket, int socketpair, boolean hasX32, int openat, int fchmod, int fchmodat, int mknodat,
         int[] legacy) {
        this.auditArch = auditArch;
        this.socket = socket;
        this.socketpair = socketpair;
        this.hasX32 = hasX32;
        this.openat = openat;
        this.fchmod = fchmod;
        this.fchmodat = fchmodat;
        this.mknodat = mknodat;
        this.open = legacy[0];
        this.creat = legacy[1];
        this.chmod = legacy[2];
        this.mknod = legacy[3];
    }

    public int openat() {
        return openat;
    }

    public int fchmod() {
        return fchmod;
    }

    public int fchmodat() {
        return fchmodat;
    }

    public int mknodat() {
        return mknodat;
    }

    /** {@code open(path, flags, mode)}, or {@link #NONE}. */
    public int open() {
        return open;
    }

    /** {@code creat(path, mode)}, or {@link #NONE}. */
    public int creat() {
        return creat;
    }

    /** {@code chmod(path, mode)}, or {@link #NONE}. */
    public int chmod() {
        return chmod;
    }

    /** {@code mknod(path, mode, dev)}, or {@link #NONE}. */
    public int mknod() {
        return mknod;
    }

    /** {@code ioctl(fd, request, arg)}. */
    public int ioctl() {
        return this == X86_64 ? 16 : 29;
    }

    public int auditArch() {
        return auditArch;
    }

    public int socket() {
        return socket;
    }

    public int socketpair() {
        return socketpair;
    }

    public boolean hasX32() {
        return hasX32;
    }

    /** The architecture of this JVM ({@code os.arch}), empty for one magus does not confine on. */
    public static Optional<Arch> host() {
        return of(System.getProperty("os.arch", ""));
    }

    static Optional<Arch> of(String osArch) {
        switch (osArch.toLowerCase(Locale.ROOT)) {
            case "amd64":
            case "x86_64":
            case "x86-64":
                return Optional.of(X86_64);
            case "aarch64":
            case "arm64":
                return Optional.of(AARCH64);
            default:
                return Optional.empty();
        }
    }
}
