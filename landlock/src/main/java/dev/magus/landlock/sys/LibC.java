package dev.magus.landlock.sys;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;

/**
 * glibc, direct-mapped. Direct mapping (rather than a {@code Library} proxy) because the
 * launch thread may call nothing that allocates native memory or loads a class: a
 * direct-mapped call with {@code int}/{@code long}/{@link Pointer} arguments does neither.
 * Errors are read from return values and {@link Native#getLastError()}, never from
 * {@code LastErrorException}, so the launch thread never builds an exception.
 *
 * <p>Registration happens in {@link Natives#init()}; every symbol is looked up there first so
 * a glibc without one of them fails at start-up with a message naming it.
 */
public final class LibC {
    private LibC() {
    }

    /** Symbols and the glibc release that introduced them, checked before registration. */
    static final String[][] REQUIRED_SYMBOLS = {
            {"syscall", "2.2.5"}, {"prctl", "2.2.5"}, {"capget", "2.2.5"}, {"capset", "2.2.5"},
            {"posix_spawn", "2.15"},
            {"posix_spawn_file_actions_init", "2.2.5"}, {"posix_spawn_file_actions_destroy", "2.2.5"},
            {"posix_spawn_file_actions_adddup2", "2.2.5"},
            {"posix_spawn_file_actions_addchdir_np", "2.29"},
            {"posix_spawn_file_actions_addclosefrom_np", "2.34"},
            {"posix_spawnattr_init", "2.2.5"}, {"posix_spawnattr_destroy", "2.2.5"},
            {"posix_spawnattr_setflags", "2.2.5"}, {"posix_spawnattr_setsigdefault", "2.2.5"},
            {"posix_spawnattr_setsigmask", "2.2.5"}, {"posix_spawnattr_setpgroup", "2.2.5"},
            {"sigemptyset", "2.2.5"}, {"sigfillset", "2.2.5"},
            {"waitpid", "2.2.5"}, {"waitid", "2.2.5"}, {"kill", "2.2.5"}, {"pipe2", "2.9"},
            {"close", "2.2.5"}, {"open", "2.2.5"}, {"readlink", "2.2.5"}, {"read", "2.2.5"}, {"write", "2.2.5"},
            {"getuid", "2.2.5"}, {"geteuid", "2.2.5"}, {"gettid", "2.30"}, {"gnu_get_libc_version", "2.2.5"},
            {"sched_getcpu", "2.6"}, {"sched_getaffinity", "2.3.4"}, {"sched_setaffinity", "2.3.4"},
    };

    static void register(NativeLibrary libc) {
        Native.register(LibC.class, libc);
    }

    static String libraryName() {
        return Platform.C_LIBRARY_NAME;
    }

    // Variadic in C; on the supported 64-bit ABIs every argument passes as a full register.
    public static native long syscall(long number, long a1, long a2, long a3, long a4);

    public static native int prctl(int option, long a2, long a3, long a4, long a5);

    public static native int capget(Pointer header, Pointer data);

    public static native int capset(Pointer header, Pointer data);

    public static native int posix_spawn(Pointer pid, Pointer path, Pointer fileActions, Pointer attr,
                                         Pointer argv, Pointer envp);

    public static native int posix_spawn_file_actions_init(Pointer fileActions);

    public static native int posix_spawn_file_actions_destroy(Pointer fileActions);

    public static native int posix_spawn_file_actions_adddup2(Pointer fileActions, int fd, int newFd);

    public static native int posix_spawn_file_actions_addchdir_np(Pointer fileActions, Pointer path);

    public static native int posix_spawn_file_actions_addclosefrom_np(Pointer fileActions, int from);

    public static native int posix_spawnattr_init(Pointer attr);

    public static native int posix_spawnattr_destroy(Pointer attr);

    public static native int posix_spawnattr_setflags(Pointer attr, short flags);

    public static native int posix_spawnattr_setsigdefault(Pointer attr, Pointer sigset);

    public static native int posix_spawnattr_setsigmask(Pointer attr, Pointer sigset);

    public static native int posix_spawnattr_setpgroup(Pointer attr, int pgroup);

    public static native int sigemptyset(Pointer sigset);

    public static native int sigfillset(Pointer sigset);

    public static native int waitpid(int pid, Pointer status, int options);

    public static native int waitid(int idType, int id, Pointer siginfo, int options);

    public static native int kill(int pid, int signal);

    public static native int pipe2(Pointer fds, int flags);

    public static native int close(int fd);

    /** {@code path} is NUL-terminated bytes; {@code mode} is always passed (open is variadic). */
    public static native int open(byte[] path, int flags, int mode);

    /**
     * Up to {@code size} bytes of the target of the link {@code path} (NUL-terminated bytes) into
     * {@code buffer}, without a NUL; the count, or -1. A result equal to {@code size} may have
     * been cut short.
     */
    public static native long readlink(byte[] path, byte[] buffer, long size);

    public static native long read(int fd, Pointer buffer, long count);

    public static native long write(int fd, Pointer buffer, long count);

    public static native int getuid();

    public static native int geteuid();

    /** The calling thread's kernel id (its {@code /proc/self/task/<tid>}). */
    public static native int gettid();

    public static native String gnu_get_libc_version();

    /** The CPU the calling thread runs on (may change right after), or -1. */
    public static native int sched_getcpu();

    /** Thread {@code tid}'s (0: the caller's) CPU mask, {@code size} bytes; 0 or -1. */
    public static native int sched_getaffinity(int tid, long size, Pointer mask);

    /** Sets thread {@code tid}'s (0: the caller's) CPU mask; 0 or -1. */
    public static native int sched_setaffinity(int tid, long size, Pointer mask);

    // <fcntl.h>, <sys/wait.h>, <sys/prctl.h>, <spawn.h> on Linux (same on x86_64 and aarch64).
    public static final int O_RDONLY = 0;
    public static final int O_WRONLY = 1;
    public static final int O_RDWR = 2;
    public static final int O_CLOEXEC = 0x80000;
    public static final int O_PATH = 0x200000;

    public static final int WNOHANG = 1;
    public static final int WEXITED = 4;
    public static final int WNOWAIT = 0x01000000;
    public static final int P_PID = 1;
    public static final int SIGINFO_SIZE = 128;
    public static final int SIGSET_SIZE = 128;
    /** glibc's posix_spawnattr_t is 336 bytes and posix_spawn_file_actions_t 80 on x86_64; we over-allocate. */
    public static final int SPAWNATTR_ALLOCATION = 512;
    public static final int FILE_ACTIONS_ALLOCATION = 256;

    public static final int PR_CAPBSET_READ = 23;
    public static final int PR_CAPBSET_DROP = 24;
    public static final int PR_SET_NO_NEW_PRIVS = 38;
    public static final int PR_GET_NO_NEW_PRIVS = 39;
    public static final int PR_CAP_AMBIENT = 47;
    public static final int PR_CAP_AMBIENT_CLEAR_ALL = 4;

    public static final short POSIX_SPAWN_SETPGROUP = 0x02;
    public static final short POSIX_SPAWN_SETSIGDEF = 0x04;
    public static final short POSIX_SPAWN_SETSIGMASK = 0x08;
    public static final short POSIX_SPAWN_SETSID = 0x80;
}
