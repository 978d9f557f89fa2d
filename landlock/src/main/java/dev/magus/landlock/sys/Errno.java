package dev.magus.landlock.sys;

import java.util.Map;

/** The errno values this module acts on, and names for messages. */
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
    public static final int ECHILD = 10;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EFAULT = 14;
    public static final int ENOTDIR = 20;
    public static final int EISDIR = 21;
    public static final int EINVAL = 22;
    public static final int EMFILE = 24;
    public static final int ETXTBSY = 26;
    public static final int EPIPE = 32;
    public static final int ENAMETOOLONG = 36;
    public static final int ENOSYS = 38;
    public static final int ELOOP = 40;
    public static final int ENOMSG = 42;
    public static final int EBADFD = 77;
    public static final int EOPNOTSUPP = 95;

    private static final Map<Integer, String> NAMES = Map.ofEntries(
            Map.entry(EPERM, "EPERM"), Map.entry(ENOENT, "ENOENT"), Map.entry(ESRCH, "ESRCH"),
            Map.entry(EINTR, "EINTR"), Map.entry(E2BIG, "E2BIG"), Map.entry(ENOEXEC, "ENOEXEC"),
            Map.entry(EBADF, "EBADF"), Map.entry(ECHILD, "ECHILD"), Map.entry(EAGAIN, "EAGAIN"),
            Map.entry(ENOMEM, "ENOMEM"), Map.entry(EACCES, "EACCES"), Map.entry(EFAULT, "EFAULT"),
            Map.entry(ENOTDIR, "ENOTDIR"), Map.entry(EISDIR, "EISDIR"), Map.entry(EINVAL, "EINVAL"),
            Map.entry(EMFILE, "EMFILE"), Map.entry(ETXTBSY, "ETXTBSY"), Map.entry(EPIPE, "EPIPE"),
            Map.entry(ENAMETOOLONG, "ENAMETOOLONG"), Map.entry(ENOSYS, "ENOSYS"),
            Map.entry(ELOOP, "ELOOP"), Map.entry(ENOMSG, "ENOMSG"), Map.entry(EBADFD, "EBADFD"),
            Map.entry(EOPNOTSUPP, "EOPNOTSUPP"));

    /** {@code EACCES}, or {@code errno 123} for one we do not name. */
    public static String name(int errno) {
        String n = NAMES.get(errno);
        return n != null ? n : "errno " + errno;
    }
}
