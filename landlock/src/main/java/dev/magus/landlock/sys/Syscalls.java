package dev.magus.landlock.sys;

import com.sun.jna.Pointer;

/**
 * Every native call this module makes, behind one interface, chosen once per process by
 * {@link Natives#syscalls()}: glibc and the Landlock system calls through JNA on Linux (x86_64,
 * aarch64, glibc 2.34 or newer), or an implementation that says why they are unavailable and
 * refuses every call (another platform, a C library without a symbol, JNA that cannot load).
 * The shape is Elasticsearch's {@code NativeAccess}: callers never touch a binding, and a host
 * where the natives cannot work is a value, not a crash at class load.
 *
 * <p>The libc calls keep their C names, arguments and results (-1 and {@link #errno()}, or an
 * errno as the result for the {@code posix_spawn} family); the Landlock calls and
 * {@link #openat2} return {@code -errno}. No call allocates or loads a class once the
 * implementation is loaded: the launch thread calls them.
 */
public interface Syscalls {

    /** Whether the calls work here; when not, every call throws and {@link #unavailableReason()} says why. */
    boolean available();

    /** Why the natives are unavailable here; empty when they are available. */
    String unavailableReason();

    /** The calling thread's {@code errno} after the last call that failed. */
    int errno();

    /** {@code strerror(errno)}: "No such file or directory". */
    String strerror(int errno);

    /** The symbolic name of {@code errno} ("ENOENT"), or {@code errno N} for one the C library does not name. */
    String errnoName(int errno);

    /** For messages: {@code ENOENT (No such file or directory)}. */
    default String describe(int errno) {
        String name = errnoName(errno);
        String message = strerror(errno);
        return message.isEmpty() || message.equals(name) ? name : name + " (" + message + ")";
    }

    /** {@code landlock_create_ruleset(NULL, 0, VERSION)}: the ABI, or {@code -errno}. */
    long landlockAbiVersion();

    /** {@code landlock_create_ruleset}: a ruleset descriptor (close-on-exec), or {@code -errno}. */
    long landlockCreateRuleset(Pointer attr, long size);

    /** {@code landlock_add_rule(fd, LANDLOCK_RULE_PATH_BENEATH, attr, 0)}: 0, or {@code -errno}. */
    long landlockAddPathBeneath(int rulesetFd, Pointer attr);

    /** {@code landlock_add_rule(fd, LANDLOCK_RULE_NET_PORT, attr, 0)} (ABI 4): 0, or {@code -errno}. */
    long landlockAddNetPort(int rulesetFd, Pointer attr);

    /** {@code landlock_restrict_self}: 0, or {@code -errno}. Confines the calling thread, for good. */
    long landlockRestrictSelf(int rulesetFd, int flags);

    /**
     * {@code openat2(dirfd, path, how, howSize)} with both pointers as addresses, so that a
     * caller with its own buffers allocates nothing: a descriptor, or {@code -errno}.
     */
    long openat2(long dirfd, long pathAddress, long howAddress, long howSize);

    /**
     * {@code getdents64(fd, buffer, count)}, the buffer as an address: bytes of
     * {@code struct linux_dirent64} read, 0 at the end of the directory, or {@code -errno}.
     */
    long getdents64(int fd, long bufferAddress, long count);

    /**
     * {@code fstatat(dirfd, path, statbuf, flags)} ({@code newfstatat} on x86_64), both
     * pointers as addresses, {@code struct stat} as the architecture lays it out: 0, or
     * {@code -errno}.
     */
    long fstatat(long dirfd, long pathAddress, long statAddress, long flags);

    /**
     * {@code statx(dirfd, path, flags, mask, statxbuf)}, both pointers as addresses: 0, or
     * {@code -errno}. The kernel says in {@code stx_mask} which of the asked fields it filled.
     */
    long statx(long dirfd, long pathAddress, long flags, long mask, long statxAddress);

    /** {@code prctl(2)}; 0 (or the value asked for), or -1 and {@link #errno()}. */
    int prctl(int option, long a2, long a3, long a4, long a5);

    int capget(Pointer header, Pointer data);

    int capset(Pointer header, Pointer data);

    int posix_spawn(Pointer pid, Pointer path, Pointer fileActions, Pointer attr, Pointer argv, Pointer envp);

    int posix_spawn_file_actions_init(Pointer fileActions);

    int posix_spawn_file_actions_destroy(Pointer fileActions);

    int posix_spawn_file_actions_adddup2(Pointer fileActions, int fd, int newFd);

    int posix_spawn_file_actions_addchdir_np(Pointer fileActions, Pointer path);

    int posix_spawn_file_actions_addclosefrom_np(Pointer fileActions, int from);

    int posix_spawnattr_init(Pointer attr);

    int posix_spawnattr_destroy(Pointer attr);

    int posix_spawnattr_setflags(Pointer attr, short flags);

    int posix_spawnattr_setsigdefault(Pointer attr, Pointer sigset);

    int posix_spawnattr_setsigmask(Pointer attr, Pointer sigset);

    int posix_spawnattr_setpgroup(Pointer attr, int pgroup);

    int sigemptyset(Pointer sigset);

    int sigfillset(Pointer sigset);

    int waitpid(int pid, Pointer status, int options);

    int waitid(int idType, int id, Pointer siginfo, int options);

    int kill(int pid, int signal);

    int pipe2(Pointer fds, int flags);

    int close(int fd);

    /** {@code path} is NUL-terminated bytes; {@code mode} is always passed (open is variadic). */
    int open(byte[] path, int flags, int mode);

    /**
     * Up to {@code size} bytes of the target of the link {@code path} (NUL-terminated bytes) into
     * {@code buffer}, without a NUL; the count, or -1. A result equal to {@code size} may have
     * been cut short.
     */
    long readlink(byte[] path, byte[] buffer, long size);

    /** {@link #readlink} of {@code path} (NUL-terminated bytes) beneath the directory {@code dirfd}. */
    long readlinkat(int dirfd, byte[] path, byte[] buffer, long size);

    /**
     * {@link #readlinkat} with both buffers as native addresses, so nothing is copied through
     * Java arrays: the count, or {@code -errno}.
     */
    long readlinkat(int dirfd, long pathAddress, long bufferAddress, long size);

    long read(int fd, Pointer buffer, long count);

    long write(int fd, Pointer buffer, long count);

    int getuid();

    int geteuid();

    /** The calling thread's kernel id (its {@code /proc/self/task/<tid>}). */
    int gettid();

    /** {@code 2.36}. */
    String gnu_get_libc_version();

    /** The CPU the calling thread runs on (may change right after), or -1. */
    int sched_getcpu();

    /** Thread {@code tid}'s (0: the caller's) CPU mask, {@code size} bytes; 0 or -1. */
    int sched_getaffinity(int tid, long size, Pointer mask);

    /** Sets thread {@code tid}'s (0: the caller's) CPU mask; 0 or -1. */
    int sched_setaffinity(int tid, long size, Pointer mask);

    /** {@code fanotify_init(flags, eventFileFlags)}: a descriptor, or -1 and {@link #errno()}. */
    int fanotify_init(int flags, int eventFileFlags);

    /**
     * {@code fanotify_mark(fd, flags, mask, dirFd, path)}, {@code path} NUL-terminated bytes: 0,
     * or -1 and {@link #errno()}.
     */
    int fanotify_mark(int fanotifyFd, int flags, long mask, int dirFd, byte[] path);

    /** {@code open_by_handle_at(mountFd, handle, flags)}: a descriptor, or -1 and {@link #errno()}. */
    int open_by_handle_at(int mountFd, Pointer handle, int flags);

    /** {@code fstatfs(fd, buffer)} ({@code struct statfs}, 120 bytes on x86_64 and aarch64): 0, or -1. */
    int fstatfs(int fd, Pointer buffer);

    /**
     * {@code seccomp(operation, flags, args)}, {@code args} as an address: the call's value (a
     * listener's descriptor for {@code SECCOMP_FILTER_FLAG_NEW_LISTENER}), or {@code -errno}.
     */
    long seccomp(int operation, int flags, long argsAddress);

    /** {@code recvmsg(fd, msg, flags)}, the {@code struct msghdr} as an address: bytes read, or {@code -errno}. */
    long recvmsg(int fd, long msgAddress, int flags);

    /** {@code fcntl(fd, cmd, arg)}: the call's value, or {@code -errno}. */
    long fcntl(int fd, int cmd, long arg);

    /** {@code mkdirat(dirFd, name, mode)}, {@code name} NUL-terminated bytes: 0, or {@code -errno}. */
    long mkdirat(int dirFd, byte[] name, int mode);

    /** {@code dup3(oldFd, newFd, flags)}: {@code newFd}, or {@code -errno}. */
    long dup3(int oldFd, int newFd, int flags);

    /** {@code ioctl(fd, request, arg)}, {@code arg} as an address: the call's value, or {@code -errno}. */
    long ioctl(int fd, long request, long argAddress);

    /**
     * {@code ppoll(fds, nfds, timeout, NULL)}, both pointers as addresses (a {@code struct
     * timespec}, or 0 to wait without end): how many descriptors are ready, or {@code -errno}.
     */
    long ppoll(long fdsAddress, long nfds, long timeoutAddress);

    /**
     * {@code process_vm_readv(pid, local, localCount, remote, remoteCount, 0)}, both {@code struct
     * iovec} arrays as addresses: bytes read (fewer when a remote page is not mapped), or
     * {@code -errno}.
     */
    long processVmReadv(int pid, long localIovAddress, long localCount, long remoteIovAddress, long remoteCount);
}
