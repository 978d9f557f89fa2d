package dev.magus.landlock.sys;

/**
 * The errno values this module acts on (ENOENT and ENOTDIR are 127, EACCES under Landlock is
 * MGS2007, E2BIG from {@code landlock_restrict_self} is too many nested domains, ...). Names and
 * messages come from the C library ({@code strerrorname_np}, {@code strerror}), not from a
 * table kept here.
 */
public final class Errno {
    private Errno() {
    }

    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int ESRCH = 3;
    public static final int EINTR = 4;
    public static final int E2BIG = 7;
    public static final int ENOEXEC = 8;
    public static final int EBADF = 9;
    public static final int EAGAIN = 11;
    public static final int EACCES = 13;
    public static final int EBUSY = 16;
    public static final int EEXIST = 17;
    public static final int ENOTDIR = 20;
    public static final int EINVAL = 22;
    public static final int EPIPE = 32;
    public static final int ENAMETOOLONG = 36;
    public static final int ENOSYS = 38;
    public static final int ELOOP = 40;
    public static final int EOPNOTSUPP = 95;

    /** The symbolic name ({@code EACCES}), from the C library; {@code errno 123} where it has none. */
    public static String name(int errno) {
        return Natives.syscalls().errnoName(errno);
    }

    /** For messages: the name and the C library's words, {@code EACCES (Permission denied)}. */
    public static String describe(int errno) {
        return Natives.syscalls().describe(errno);
    }
}
