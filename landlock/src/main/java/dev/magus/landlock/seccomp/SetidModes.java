package dev.magus.landlock.seccomp;

import java.util.Optional;

/**
 * No confined child sets {@code S_ISUID} or {@code S_ISGID} on anything: a root child could leave
 * a set-user-ID root executable in the workspace ({@code chmod 4755}, {@code install -m 4755},
 * {@code open(O_CREAT, 04755)}, a tar keeping modes) for any local user to run later. Landlock
 * has no right for a mode change, so the seccomp program refuses, with EPERM as the kernel would,
 * on the call's mode argument, the one place the bits are exact and free to check:
 * <ul>
 *   <li>{@code chmod}, {@code fchmod}, {@code fchmodat}, {@code fchmodat2} with {@code 06000} bits;
 *   <li>{@code open}, {@code openat}, {@code creat} that create ({@code O_CREAT} or
 *       {@code __O_TMPFILE}) with such a mode (one that creates nothing carries no mode);
 *   <li>{@code mknod}, {@code mknodat} with such a mode.
 * </ul>
 * {@code openat2} takes its mode in a struct the filter cannot read, so it is refused with ENOSYS,
 * as on a kernel without it: the C library does not call it and its callers fall back to
 * {@code openat}. Likewise {@code io_uring}, whose {@code IORING_OP_OPENAT} creates a file unseen
 * (see {@link SocketRules}).
 *
 * <p>The filter sees neither the file type nor its current mode, so {@code chmod g+s} on a
 * directory is refused too, even one that has the bit; bits the kernel sets itself (a directory
 * inheriting set-group-ID) stay. The after-run audit and the dropped {@code CAP_FSETID} are the
 * second and third lines.
 */
public final class SetidModes {
    private SetidModes() {
    }

    public static final int S_ISUID = 04000;
    public static final int S_ISGID = 02000;
    public static final int SETID_BITS = S_ISUID | S_ISGID;
    public static final int O_CREAT = 0100;
    /** {@code __O_TMPFILE}, without the {@code O_DIRECTORY} that {@code O_TMPFILE} adds: the same value on both. */
    public static final int O_TMPFILE_BIT = 020000000;
    public static final int EPERM = 1;

    /**
     * Why the call {@code nr(args...)} on {@code arch} is refused by this rule, empty when it is
     * not: the decision the BPF program makes, as a value (the tests hold the two equal). Each
     * argument is read as its low 32 bits, as the kernel reads a mode or flags.
     */
    public static Optional<String> refusal(Arch arch, int nr, long... args) {
        if (nr == Arch.OPENAT2) {
            return Optional.of("openat2 (ENOSYS: its mode cannot be inspected)");
        }
        if (nr == arch.openat()) {
            return creates(arg(args, 2)) ? bits("openat", arg(args, 3)) : Optional.empty();
        }
        if (nr == arch.open() && nr != Arch.NONE) {
            return creates(arg(args, 1)) ? bits("open", arg(args, 2)) : Optional.empty();
        }
        if (nr == arch.creat() && nr != Arch.NONE) {
            return bits("creat", arg(args, 1));
        }
        if (nr == arch.chmod() && nr != Arch.NONE) {
            return bits("chmod", arg(args, 1));
        }
        if (nr == arch.fchmod()) {
            return bits("fchmod", arg(args, 1));
        }
        if (nr == arch.fchmodat()) {
            return bits("fchmodat", arg(args, 2));
        }
        if (nr == Arch.FCHMODAT2) {
            return bits("fchmodat2", arg(args, 2));
        }
        if (nr == arch.mknod() && nr != Arch.NONE) {
            return bits("mknod", arg(args, 1));
        }
        if (nr == arch.mknodat()) {
            return bits("mknodat", arg(args, 2));
        }
        return Optional.empty();
    }

    private static int arg(long[] args, int i) {
        return i < args.length ? (int) args[i] : 0;
    }

    private static boolean creates(int flags) {
        return (flags & (O_CREAT | O_TMPFILE_BIT)) != 0;
    }

    private static Optional<String> bits(String call, int mode) {
        return (mode & SETID_BITS) != 0
                ? Optional.of(call + " with mode " + Integer.toOctalString(mode & 07777) + " (set-user-ID or set-group-ID)")
                : Optional.empty();
    }
}
