package dev.magus.landlock.supervise;

import java.util.concurrent.locks.LockSupport;

/**
 * Where a launch thread hands its supervisor the listener it just created. Only a volatile
 * write and {@code LockSupport.unpark}: a launch thread runs nothing else.
 */
public final class Listener {
    private final Thread reader;
    private volatile int fd = -1;
    private volatile int launchTid;

    Listener(Thread reader) {
        this.reader = reader;
    }

    /**
     * On the launch thread, right after {@code seccomp(SECCOMP_FILTER_FLAG_NEW_LISTENER)} and
     * before its spawn: the supervisor starts answering, the launch thread's own calls included.
     *
     * @param tid the launch thread's id: its calls (the spawn's) are answered, never reported
     */
    public void listening(int listenerFd, int tid) {
        launchTid = tid;
        fd = listenerFd;
        LockSupport.unpark(reader);
    }

    int fd() {
        return fd;
    }

    int launchTid() {
        return launchTid;
    }
}
