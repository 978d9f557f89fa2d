package dev.magus.landlock.sys;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;

/**
 * {@link Syscalls} through JNA's direct mapping ({@link JnaLibC}). Every method is one static
 * native call: nothing allocated, no class loaded, so the launch thread may call them. Only
 * {@link Natives} creates it, after registering the binding.
 */
final class JnaSyscalls implements Syscalls {
    /** The same number on every architecture. */
    private static final long SYS_OPENAT2 = 437;

    JnaSyscalls() {
    }

    @Override
    public boolean available() {
        return true;
    }

    @Override
    public String unavailableReason() {
        return "";
    }

    @Override
    public int errno() {
        return Native.getLastError();
    }

    @Override
    public String strerror(int errno) {
        String s = JnaLibC.strerror(errno);
        return s != null ? s : "";
    }

    @Override
    public String errnoName(int errno) {
        String s = JnaLibC.strerrorname_np(errno);
        return s != null ? s : "errno " + errno;
    }

    @Override
    public long landlockAbiVersion() {
        return call(Landlock.SYS_CREATE_RULESET, 0, 0, Landlock.CREATE_RULESET_VERSION, 0);
    }

    @Override
    public long landlockCreateRuleset(Pointer attr, long size) {
        return call(Landlock.SYS_CREATE_RULESET, Pointer.nativeValue(attr), size, 0, 0);
    }

    @Override
    public long landlockAddPathBeneath(int rulesetFd, Pointer attr) {
        return call(Landlock.SYS_ADD_RULE, rulesetFd, Landlock.RULE_PATH_BENEATH, Pointer.nativeValue(attr), 0);
    }

    @Override
    public long landlockAddNetPort(int rulesetFd, Pointer attr) {
        return call(Landlock.SYS_ADD_RULE, rulesetFd, Landlock.RULE_NET_PORT, Pointer.nativeValue(attr), 0);
    }

    @Override
    public long landlockRestrictSelf(int rulesetFd, int flags) {
        return call(Landlock.SYS_RESTRICT_SELF, rulesetFd, flags, 0, 0);
    }

    @Override
    public long openat2(long dirfd, long pathAddress, long howAddress, long howSize) {
        return call(SYS_OPENAT2, dirfd, pathAddress, howAddress, howSize);
    }

    private static final boolean X86_64 = com.sun.jna.Platform.ARCH.equals("x86-64");
    private static final long SYS_GETDENTS64 = X86_64 ? 217 : 61;
    private static final long SYS_FSTATAT = X86_64 ? 262 : 79;

    @Override
    public long getdents64(int fd, long bufferAddress, long count) {
        return call(SYS_GETDENTS64, fd, bufferAddress, count, 0);
    }

    @Override
    public long fstatat(long dirfd, long pathAddress, long statAddress, long flags) {
        return call(SYS_FSTATAT, dirfd, pathAddress, statAddress, flags);
    }

    private static final long SYS_STATX = X86_64 ? 332 : 291;

    @Override
    public long statx(long dirfd, long pathAddress, long flags, long mask, long statxAddress) {
        long r = JnaLibC.syscall(SYS_STATX, dirfd, pathAddress, flags, mask, statxAddress);
        return r < 0 ? -Native.getLastError() : r;
    }

    private static long call(long number, long a1, long a2, long a3, long a4) {
        long r = JnaLibC.syscall(number, a1, a2, a3, a4);
        return r < 0 ? -Native.getLastError() : r;
    }

    @Override
    public int prctl(int option, long a2, long a3, long a4, long a5) {
        return JnaLibC.prctl(option, a2, a3, a4, a5);
    }

    @Override
    public int capget(Pointer header, Pointer data) {
        return JnaLibC.capget(header, data);
    }

    @Override
    public int capset(Pointer header, Pointer data) {
        return JnaLibC.capset(header, data);
    }

    @Override
    public int posix_spawn(Pointer pid, Pointer path, Pointer fileActions, Pointer attr, Pointer argv, Pointer envp) {
        return JnaLibC.posix_spawn(pid, path, fileActions, attr, argv, envp);
    }

    @Override
    public int posix_spawn_file_actions_init(Pointer fileActions) {
        return JnaLibC.posix_spawn_file_actions_init(fileActions);
    }

    @Override
    public int posix_spawn_file_actions_destroy(Pointer fileActions) {
        return JnaLibC.posix_spawn_file_actions_destroy(fileActions);
    }

    @Override
    public int posix_spawn_file_actions_adddup2(Pointer fileActions, int fd, int newFd) {
        return JnaLibC.posix_spawn_file_actions_adddup2(fileActions, fd, newFd);
    }

    @Override
    public int posix_spawn_file_actions_addchdir_np(Pointer fileActions, Pointer path) {
        return JnaLibC.posix_spawn_file_actions_addchdir_np(fileActions, path);
    }

    @Override
    public int posix_spawn_file_actions_addclosefrom_np(Pointer fileActions, int from) {
        return JnaLibC.posix_spawn_file_actions_addclosefrom_np(fileActions, from);
    }

    @Override
    public int posix_spawnattr_init(Pointer attr) {
        return JnaLibC.posix_spawnattr_init(attr);
    }

    @Override
    public int posix_spawnattr_destroy(Pointer attr) {
        return JnaLibC.posix_spawnattr_destroy(attr);
    }

    @Override
    public int posix_spawnattr_setflags(Pointer attr, short flags) {
        return JnaLibC.posix_spawnattr_setflags(attr, flags);
    }

    @Override
    public int posix_spawnattr_setsigdefault(Pointer attr, Pointer sigset) {
        return JnaLibC.posix_spawnattr_setsigdefault(attr, sigset);
    }

    @Override
    public int posix_spawnattr_setsigmask(Pointer attr, Pointer sigset) {
        return JnaLibC.posix_spawnattr_setsigmask(attr, sigset);
    }

    @Override
    public int posix_spawnattr_setpgroup(Pointer attr, int pgroup) {
        return JnaLibC.posix_spawnattr_setpgroup(attr, pgroup);
    }

    @Override
    public int sigemptyset(Pointer sigset) {
        return JnaLibC.sigemptyset(sigset);
    }

    @Override
    public int sigfillset(Pointer sigset) {
        return JnaLibC.sigfillset(sigset);
    }

    @Override
    public int waitpid(int pid, Pointer status, int options) {
        return JnaLibC.waitpid(pid, status, options);
    }

    @Override
    public int waitid(int idType, int id, Pointer siginfo, int options) {
        return JnaLibC.waitid(idType, id, siginfo, options);
    }

    @Override
    public int kill(int pid, int signal) {
        return JnaLibC.kill(pid, signal);
    }

    @Override
    public int pipe2(Pointer fds, int flags) {
        return JnaLibC.pipe2(fds, flags);
    }

    @Override
    public int close(int fd) {
        return JnaLibC.close(fd);
    }

    @Override
    public int open(byte[] path, int flags, int mode) {
        return JnaLibC.open(path, flags, mode);
    }

    @Override
    public long readlink(byte[] path, byte[] buffer, long size) {
        return JnaLibC.readlink(path, buffer, size);
    }

    @Override
    public long readlinkat(int dirfd, byte[] path, byte[] buffer, long size) {
        return JnaLibC.readlinkat(dirfd, path, buffer, size);
    }

    private static final long SYS_READLINKAT = X86_64 ? 267 : 78;

    @Override
    public long readlinkat(int dirfd, long pathAddress, long bufferAddress, long size) {
        return call(SYS_READLINKAT, dirfd, pathAddress, bufferAddress, size);
    }

    @Override
    public long read(int fd, Pointer buffer, long count) {
        return JnaLibC.read(fd, buffer, count);
    }

    @Override
    public long write(int fd, Pointer buffer, long count) {
        return JnaLibC.write(fd, buffer, count);
    }

    @Override
    public int getuid() {
        return JnaLibC.getuid();
    }

    @Override
    public int geteuid() {
        return JnaLibC.geteuid();
    }

    @Override
    public int gettid() {
        return JnaLibC.gettid();
    }

    @Override
    public String gnu_get_libc_version() {
        return JnaLibC.gnu_get_libc_version();
    }

    @Override
    public int sched_getcpu() {
        return JnaLibC.sched_getcpu();
    }

    @Override
    public int sched_getaffinity(int tid, long size, Pointer mask) {
        return JnaLibC.sched_getaffinity(tid, size, mask);
    }

    @Override
    public int sched_setaffinity(int tid, long size, Pointer mask) {
        return JnaLibC.sched_setaffinity(tid, size, mask);
    }

    @Override
    public int fanotify_init(int flags, int eventFileFlags) {
        return JnaLibC.fanotify_init(flags, eventFileFlags);
    }

    @Override
    public int fanotify_mark(int fanotifyFd, int flags, long mask, int dirFd, byte[] path) {
        return JnaLibC.fanotify_mark(fanotifyFd, flags, mask, dirFd, path);
    }

    @Override
    public int open_by_handle_at(int mountFd, Pointer handle, int flags) {
        return JnaLibC.open_by_handle_at(mountFd, handle, flags);
    }

    @Override
    public int fstatfs(int fd, Pointer buffer) {
        return JnaLibC.fstatfs(fd, buffer);
    }

    private static final long SYS_SECCOMP = X86_64 ? 317 : 277;
    private static final long SYS_IOCTL = X86_64 ? 16 : 29;
    private static final long SYS_FCNTL = X86_64 ? 72 : 25;
    private static final long SYS_RECVMSG = X86_64 ? 47 : 212;
    private static final long SYS_PPOLL = X86_64 ? 271 : 73;
    /** {@code sizeof(sigset_t)} as the kernel takes it: 64 signals. */
    private static final long KERNEL_SIGSET_BYTES = 8;

    @Override
    public long seccomp(int operation, int flags, long argsAddress) {
        return call(SYS_SECCOMP, operation, flags, argsAddress, 0);
    }

    private static final long SYS_MKDIRAT = X86_64 ? 258 : 34;

    @Override
    public long mkdirat(int dirFd, byte[] name, int mode) {
        try (Memory m = new Memory(name.length)) {
            m.write(0, name, 0, name.length);
            return call(SYS_MKDIRAT, dirFd, Pointer.nativeValue(m), mode, 0);
        }
    }

    private static final long SYS_DUP3 = X86_64 ? 292 : 24;

    @Override
    public long dup3(int oldFd, int newFd, int flags) {
        return call(SYS_DUP3, oldFd, newFd, flags, 0);
    }

    @Override
    public long recvmsg(int fd, long msgAddress, int flags) {
        return call(SYS_RECVMSG, fd, msgAddress, flags, 0);
    }

    @Override
    public long fcntl(int fd, int cmd, long arg) {
        return call(SYS_FCNTL, fd, cmd, arg, 0);
    }

    @Override
    public long ioctl(int fd, long request, long argAddress) {
        return call(SYS_IOCTL, fd, request, argAddress, 0);
    }

    private static final long SYS_PROCESS_VM_READV = X86_64 ? 310 : 270;

    @Override
    public long processVmReadv(int pid, long localIovAddress, long localCount, long remoteIovAddress,
            long remoteCount) {
        long r = JnaLibC.syscall(SYS_PROCESS_VM_READV, pid, localIovAddress, localCount, remoteIovAddress,
                remoteCount, 0);
        return r < 0 ? -Native.getLastError() : r;
    }

    @Override
    public long ppoll(long fdsAddress, long nfds, long timeoutAddress) {
        long r = JnaLibC.syscall(SYS_PPOLL, fdsAddress, nfds, timeoutAddress, 0, KERNEL_SIGSET_BYTES);
        return r < 0 ? -Native.getLastError() : r;
    }
}
