package dev.magus.landlock.sys;

/**
 * glibc's constants on Linux (the same on x86_64 and aarch64), for the calls of
 * {@link Syscalls}: open flags, wait options, prctl options, posix_spawn flags and the sizes of
 * the structures the launcher allocates itself.
 */
public final class LibC {
    private LibC() {
    }

    // <fcntl.h>, <sys/wait.h>, <sys/prctl.h>, <spawn.h> on Linux (same on x86_64 and aarch64).
    public static final int O_RDONLY = 0;
    public static final int O_WRONLY = 1;
    public static final int O_RDWR = 2;
    public static final int O_CLOEXEC = 0x80000;
    /** {@code fcntl}: a duplicate at the lowest free descriptor from the argument on, close-on-exec. */
    public static final int F_DUPFD_CLOEXEC = 1030;
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
    public static final int PR_SET_NAME = 15;
    public static final int PR_SET_NO_NEW_PRIVS = 38;
    public static final int PR_SET_DUMPABLE = 4;
    public static final int PR_GET_DUMPABLE = 3;
    public static final int PR_GET_NO_NEW_PRIVS = 39;
    public static final int PR_CAP_AMBIENT = 47;
    public static final int PR_SET_SECCOMP = 22;
    public static final int SECCOMP_MODE_FILTER = 2;
    public static final int PR_CAP_AMBIENT_CLEAR_ALL = 4;

    public static final short POSIX_SPAWN_SETSIGDEF = 0x04;
    public static final short POSIX_SPAWN_SETSIGMASK = 0x08;
    public static final short POSIX_SPAWN_SETSID = 0x80;
}
