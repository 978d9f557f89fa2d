package dev.magus.landlock.sys;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import java.util.List;

/**
 * glibc, direct-mapped: the JNA binding behind {@link JnaSyscalls}, and nothing else uses it.
 * Direct mapping (rather than a {@code Library} proxy) because the launch thread may call
 * nothing that allocates native memory or loads a class: a direct-mapped call with
 * {@code int}/{@code long}/{@link Pointer} arguments does neither. Errors are read from return
 * values and {@link Native#getLastError()}, never from {@code LastErrorException}, so the launch
 * thread never builds an exception.
 *
 * <p>Registration happens in {@link Natives}; every symbol is looked up there first so a glibc
 * without one of them is found at start-up, with a message naming it.
 */
final class JnaLibC {
    private JnaLibC() {
    }

    /** Symbols and the glibc release that introduced them, checked before registration. */
    static final List<List<String>> REQUIRED_SYMBOLS = List.of(
            List.of("syscall", "2.2.5"), List.of("prctl", "2.2.5"), List.of("capget", "2.2.5"),
            List.of("capset", "2.2.5"), List.of("posix_spawn", "2.15"),
            List.of("posix_spawn_file_actions_init", "2.2.5"), List.of("posix_spawn_file_actions_destroy", "2.2.5"),
            List.of("posix_spawn_file_actions_adddup2", "2.2.5"),
            List.of("posix_spawn_file_actions_addchdir_np", "2.29"),
            List.of("posix_spawn_file_actions_addclosefrom_np", "2.34"), List.of("posix_spawnattr_init", "2.2.5"),
            List.of("posix_spawnattr_destroy", "2.2.5"), List.of("posix_spawnattr_setflags", "2.2.5"),
            List.of("posix_spawnattr_setsigdefault", "2.2.5"), List.of("posix_spawnattr_setsigmask", "2.2.5"),
            List.of("posix_spawnattr_setpgroup", "2.2.5"), List.of("sigemptyset", "2.2.5"),
            List.of("sigfillset", "2.2.5"), List.of("waitpid", "2.2.5"), List.of("waitid", "2.2.5"),
            List.of("kill", "2.2.5"), List.of("pipe2", "2.9"), List.of("close", "2.2.5"), List.of("open", "2.2.5"),
            List.of("readlink", "2.2.5"), List.of("readlinkat", "2.4"), List.of("read", "2.2.5"),
            List.of("write", "2.2.5"), List.of("getuid", "2.2.5"), List.of("geteuid", "2.2.5"),
            List.of("gettid", "2.30"), List.of("gnu_get_libc_version", "2.2.5"), List.of("sched_getcpu", "2.6"),
            List.of("sched_getaffinity", "2.3.4"), List.of("sched_setaffinity", "2.3.4"),
            List.of("strerror", "2.2.5"), List.of("strerrorname_np", "2.32"), List.of("fanotify_init", "2.13"),
            List.of("fanotify_mark", "2.13"), List.of("open_by_handle_at", "2.14"), List.of("fstatfs", "2.2.5")
    );

    static void register(NativeLibrary libc) {
        Native.register(JnaLibC.class, libc);
    }

    // Variadic in C; on the supported 64-bit ABIs every argument passes as a full register.
    static native long syscall(long number, long a1, long a2, long a3, long a4);

    /** {@link #syscall(long, long, long, long, long)} with a fifth argument ({@code statx}). */
    static native long syscall(long number, long a1, long a2, long a3, long a4, long a5);

    /** With a sixth argument ({@code process_vm_readv}'s flags). */
    static native long syscall(long number, long a1, long a2, long a3, long a4, long a5, long a6);

    static native int prctl(int option, long a2, long a3, long a4, long a5);

    static native int capget(Pointer header, Pointer data);

    static native int capset(Pointer header, Pointer data);

    static native int posix_spawn(Pointer pid, Pointer path, Pointer fileActions, Pointer attr,
                                         Pointer argv, Pointer envp);

    static native int posix_spawn_file_actions_init(Pointer fileActions);

    static native int posix_spawn_file_actions_destroy(Pointer fileActions);

    static native int posix_spawn_file_actions_adddup2(Pointer fileActions, int fd, int newFd);

    static native int posix_spawn_file_actions_addchdir_np(Pointer fileActions, Pointer path);

    static native int posix_spawn_file_actions_addclosefrom_np(Pointer fileActions, int from);

    static native int posix_spawnattr_init(Pointer attr);

    static native int posix_spawnattr_destroy(Pointer attr);

    static native int posix_spawnattr_setflags(Pointer attr, short flags);

    static native int posix_spawnattr_setsigdefault(Pointer attr, Pointer sigset);

    static native int posix_spawnattr_setsigmask(Pointer attr, Pointer sigset);

    static native int posix_spawnattr_setpgroup(Pointer attr, int pgroup);

    static native int sigemptyset(Pointer sigset);

    static native int sigfillset(Pointer sigset);

    static native int waitpid(int pid, Pointer status, int options);

    static native int waitid(int idType, int id, Pointer siginfo, int options);

    static native int kill(int pid, int signal);

    static native int pipe2(Pointer fds, int flags);

    static native int close(int fd);

    /** {@code path} is NUL-terminated bytes; {@code mode} is always passed (open is variadic). */
    static native int open(byte[] path, int flags, int mode);

    /**
     * Up to {@code size} bytes of the target of the link {@code path} (NUL-terminated bytes) into
     * {@code buffer}, without a NUL; the count, or -1. A result equal to {@code size} may have
     * been cut short.
     */
    static native long readlink(byte[] path, byte[] buffer, long size);

    static native long readlinkat(int dirfd, byte[] path, byte[] buffer, long size);

    static native long read(int fd, Pointer buffer, long count);

    static native long write(int fd, Pointer buffer, long count);

    static native int getuid();

    static native int geteuid();

    /** The calling thread's kernel id (its {@code /proc/self/task/<tid>}). */
    static native int gettid();

    static native String gnu_get_libc_version();

    /** The CPU the calling thread runs on (may change right after), or -1. */
    static native int sched_getcpu();

    /** Thread {@code tid}'s (0: the caller's) CPU mask, {@code size} bytes; 0 or -1. */
    static native int sched_getaffinity(int tid, long size, Pointer mask);

    /** Sets thread {@code tid}'s (0: the caller's) CPU mask; 0 or -1. */
    static native int sched_setaffinity(int tid, long size, Pointer mask);

    /** The message of {@code errno}, in the C locale's words ("No such file or directory"). */
    static native String strerror(int errno);

    /** The symbolic name of {@code errno} ("ENOENT"), or null for one glibc does not name. */
    static native String strerrorname_np(int errno);

    /** {@code fanotify_init(2)}: a descriptor, or -1. */
    static native int fanotify_init(int flags, int eventFileFlags);

    /** {@code fanotify_mark(2)}, {@code path} NUL-terminated bytes: 0, or -1. */
    static native int fanotify_mark(int fanotifyFd, int flags, long mask, int dirFd, byte[] path);

    /** {@code open_by_handle_at(2)}, {@code handle} a {@code struct file_handle}: a descriptor, or -1. */
    static native int open_by_handle_at(int mountFd, Pointer handle, int flags);

    /** {@code fstatfs(2)} into {@code buffer} ({@code struct statfs}): 0, or -1. */
    static native int fstatfs(int fd, Pointer buffer);
}
