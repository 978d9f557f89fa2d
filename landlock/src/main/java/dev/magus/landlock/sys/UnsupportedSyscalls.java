package dev.magus.landlock.sys;

import com.sun.jna.Pointer;

/**
 * {@link Syscalls} where the natives cannot work (another platform, a C library without a
 * symbol, JNA that cannot load): says why, probes as "no Landlock" ({@code -ENOSYS}), and
 * refuses every other call with that reason, so nothing runs unconfined by accident. Loads no
 * JNA class: it must work where JNA does not.
 */
final class UnsupportedSyscalls implements Syscalls {
    private final String reason;

    UnsupportedSyscalls(String reason) {
        this.reason = reason;
    }

    private UnsupportedOperationException unavailable() {
        return new UnsupportedOperationException(reason);
    }

    @Override
    public boolean available() {
        return false;
    }

    @Override
    public String unavailableReason() {
        return reason;
    }

    @Override
    public int errno() {
        return 0;
    }

    @Override
    public String strerror(int errno) {
        return "";
    }

    @Override
    public String errnoName(int errno) {
        return "errno " + errno;
    }

    @Override
    public long landlockAbiVersion() {
        return -Errno.ENOSYS;
    }

    @Override
    public long landlockCreateRuleset(Pointer attr, long size) {
        throw unavailable();
    }

    @Override
    public long landlockAddPathBeneath(int rulesetFd, Pointer attr) {
        throw unavailable();
    }

    @Override
    public long landlockAddNetPort(int rulesetFd, Pointer attr) {
        throw unavailable();
    }

    @Override
    public long landlockRestrictSelf(int rulesetFd, int flags) {
        throw unavailable();
    }

    @Override
    public long openat2(long dirfd, long pathAddress, long howAddress, long howSize) {
        throw unavailable();
    }

    @Override
    public long getdents64(int fd, long bufferAddress, long count) {
        throw unavailable();
    }

    @Override
    public long statx(long dirfd, long pathAddress, long flags, long mask, long statxAddress) {
        throw unavailable();
    }

    @Override
    public long fstatat(long dirfd, long pathAddress, long statAddress, long flags) {
        throw unavailable();
    }

    @Override
    public int prctl(int option, long a2, long a3, long a4, long a5) {
        throw unavailable();
    }

    @Override
    public int capget(Pointer header, Pointer data) {
        throw unavailable();
    }

    @Override
    public int capset(Pointer header, Pointer data) {
        throw unavailable();
    }

    @Override
    public int posix_spawn(Pointer pid, Pointer path, Pointer fileActions, Pointer attr, Pointer argv, Pointer envp) {
        throw unavailable();
    }

    @Override
    public int posix_spawn_file_actions_init(Pointer fileActions) {
        throw unavailable();
    }

    @Override
    public int posix_spawn_file_actions_destroy(Pointer fileActions) {
        throw unavailable();
    }

    @Override
    public int posix_spawn_file_actions_adddup2(Pointer fileActions, int fd, int newFd) {
        throw unavailable();
    }

    @Override
    public int posix_spawn_file_actions_addchdir_np(Pointer fileActions, Pointer path) {
        throw unavailable();
    }

    @Override
    public int posix_spawn_file_actions_addclosefrom_np(Pointer fileActions, int from) {
        throw unavailable();
    }

    @Override
    public int posix_spawnattr_init(Pointer attr) {
        throw unavailable();
    }

    @Override
    public int posix_spawnattr_destroy(Pointer attr) {
        throw unavailable();
    }

    @Override
    public int posix_spawnattr_setflags(Pointer attr, short flags) {
        throw unavailable();
    }

    @Override
    public int posix_spawnattr_setsigdefault(Pointer attr, Pointer sigset) {
        throw unavailable();
    }

    @Override
    public int posix_spawnattr_setsigmask(Pointer attr, Pointer sigset) {
        throw unavailable();
    }

    @Override
    public int posix_spawnattr_setpgroup(Pointer attr, int pgroup) {
        throw unavailable();
    }

    @Override
    public int sigemptyset(Pointer sigset) {
        throw unavailable();
    }

    @Override
    public int sigfillset(Pointer sigset) {
        throw unavailable();
    }

    @Override
    public int waitpid(int pid, Pointer status, int options) {
        throw unavailable();
    }

    @Override
    public int waitid(int idType, int id, Pointer siginfo, int options) {
        throw unavailable();
    }

    @Override
    public int kill(int pid, int signal) {
        throw unavailable();
    }

    @Override
    public int pipe2(Pointer fds, int flags) {
        throw unavailable();
    }

    @Override
    public int close(int fd) {
        throw unavailable();
    }

    @Override
    public int open(byte[] path, int flags, int mode) {
        throw unavailable();
    }

    @Override
    public long readlink(byte[] path, byte[] buffer, long size) {
        throw unavailable();
    }

    @Override
    public long readlinkat(int dirfd, byte[] path, byte[] buffer, long size) {
        throw unavailable();
    }

    @Override
    public long readlinkat(int dirfd, long pathAddress, long bufferAddress, long size) {
        throw unavailable();
    }

    @Override
    public long read(int fd, Pointer buffer, long count) {
        throw unavailable();
    }

    @Override
    public long write(int fd, Pointer buffer, long count) {
        throw unavailable();
    }

    @Override
    public int getuid() {
        throw unavailable();
    }

    @Override
    public int geteuid() {
        throw unavailable();
    }

    @Override
    public int gettid() {
        throw unavailable();
    }

    @Override
    public String gnu_get_libc_version() {
        throw unavailable();
    }

    @Override
    public int sched_getcpu() {
        throw unavailable();
    }

    @Override
    public int sched_getaffinity(int tid, long size, Pointer mask) {
        throw unavailable();
    }

    @Override
    public int sched_setaffinity(int tid, long size, Pointer mask) {
        throw unavailable();
    }

    @Override
    public int fanotify_init(int flags, int eventFileFlags) {
        throw unavailable();
    }

    @Override
    public int fanotify_mark(int fanotifyFd, int flags, long mask, int dirFd, byte[] path) {
        throw unavailable();
    }

    @Override
    public int open_by_handle_at(int mountFd, Pointer handle, int flags) {
        throw unavailable();
    }

    @Override
    public int fstatfs(int fd, Pointer buffer) {
        throw unavailable();
    }

    @Override
    public long mkdirat(int dirFd, byte[] name, int mode) {
        throw unavailable();
    }

    @Override
    public long dup3(int oldFd, int newFd, int flags) {
        throw unavailable();
    }

    @Override
    public long seccomp(int operation, int flags, long argsAddress) {
        throw unavailable();
    }

    @Override
    public long recvmsg(int fd, long msgAddress, int flags) {
        throw unavailable();
    }

    @Override
    public long fcntl(int fd, int cmd, long arg) {
        throw unavailable();
    }

    @Override
    public long ioctl(int fd, long request, long argAddress) {
        throw unavailable();
    }

    @Override
    public long processVmReadv(int pid, long localIovAddress, long localCount, long remoteIovAddress,
            long remoteCount) {
        throw unavailable();
    }

    @Override
    public long ppoll(long fdsAddress, long nfds, long timeoutAddress) {
        throw unavailable();
    }
}
