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
    X86_64(0xC000003E, 41, 53, true),
    AARCH64(0xC00000B7, 198, 199, false);

    /** {@code __X32_SYSCALL_BIT}. */
    public static final int X32_SYSCALL_BIT = 0x40000000;
    /** {@code io_uring_setup}, {@code _enter}, {@code _register}: the same numbers on both. */
    public static final int IO_URING_SETUP = 425;
    public static final int IO_URING_ENTER = 426;
    public static final int IO_URING_REGISTER = 427;

    private final int auditArch;
    private final int socket;
    private final int socketpair;
    private final boolean hasX32;

    Arch(int auditArch, int socket, int socketpair, boolean hasX32) {
        this.auditArch = auditArch;
        this.socket = socket;
        this.socketpair = socketpair;
        this.hasX32 = hasX32;
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
