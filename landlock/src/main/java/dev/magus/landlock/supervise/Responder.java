package dev.magus.landlock.supervise;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import dev.magus.landlock.sys.Errno;
import dev.magus.landlock.sys.Natives;
import dev.magus.landlock.sys.Syscalls;

/**
 * Answers to calls decided off the supervisor's thread (an approval), and the one owner of the
 * listener descriptor: it is closed under the same lock, so that no late answer reaches a
 * descriptor number the process has meanwhile given to something else. The kernel takes answers
 * in any order.
 */
final class Responder {
    /** {@code SECCOMP_IOCTL_NOTIF_ADDFD}: {@code _IOW('!', 3, struct seccomp_notif_addfd)}. */
    static final long NOTIF_ADDFD = 0x40182103L;
    /** {@code SECCOMP_ADDFD_FLAG_SEND} (Linux 5.14): install the descriptor and answer the call with it. */
    static final int ADDFD_FLAG_SEND = 2;
    private static final int O_CLOEXEC = 0x80000;

    private final Syscalls sys = Natives.require();
    private final int fd;
    private boolean closed;
    private boolean abandoned;

    Responder(int fd) {
        this.fd = fd;
    }

    int fd() {
        return fd;
    }

    /** Lets the call go on: Landlock decides. */
    synchronized void proceed(long id) {
        send(id, 0, Supervisor.FLAG_CONTINUE);
    }

    /** Answers the call as done, with 0 (what magus did in its stead). */
    synchronized void succeed(long id) {
        send(id, 0, 0);
    }

    /** Fails the call with {@code errno}. */
    synchronized void fail(long id, int errno) {
        send(id, errno, 0);
    }

    /**
     * Installs {@code source} (magus's own descriptor) in the caller and answers the call with its
     * number; the caller's copy is close-on-exec when its open asked so. A notification no longer
     * valid gets nothing; one whose install fails is failed with that error.
     */
    synchronized void inject(long id, int source, boolean cloexec) {
        if (closed || abandoned || !valid(id)) {
            return;
        }
        try (Memory addfd = new Memory(24)) {
            addfd.clear();
            addfd.setLong(0, id);
            addfd.setInt(8, ADDFD_FLAG_SEND);
            addfd.setInt(12, source);
            addfd.setInt(16, 0);
            addfd.setInt(20, cloexec ? O_CLOEXEC : 0);
            long r = sys.ioctl(fd, NOTIF_ADDFD, Pointer.nativeValue(addfd));
            if (r < 0 && r != -Errno.ENOENT) {
                send(id, (int) -r, 0);
            }
        }
    }

    private boolean valid(long id) {
        try (Memory m = new Memory(8)) {
            m.setLong(0, id);
            return sys.ioctl(fd, Supervisor.NOTIF_ID_VALID, Pointer.nativeValue(m)) == 0;
        }
    }

    private void send(long id, int errno, int flags) {
        if (closed || abandoned) {
            return;
        }
        try (Memory resp = new Memory(24)) {
            resp.clear();
            resp.setLong(0, id);
            resp.setInt(16, -errno);
            resp.setInt(20, flags);
            // ENOENT: the caller went away meanwhile; nothing waits for the answer.
            sys.ioctl(fd, Supervisor.NOTIF_SEND, Pointer.nativeValue(resp));
        }
    }

    /**
     * Lets go of the listener from another thread than the one that may be stuck using it: its
     * descriptor is made {@code /dev/null} in one step ({@code dup3}), so the listener is released
     * (every waiting call, and every later one, fails with ENOSYS) while the number stays
     * magus's own until {@link #close} (no late call reaches a reused number).
     */
    synchronized void abandon() {
        if (closed || abandoned) {
            return;
        }
        abandoned = true;
        int nul = sys.open("/dev/null\0".getBytes(java.nio.charset.StandardCharsets.US_ASCII), O_CLOEXEC, 0);
        if (nul >= 0) {
            sys.dup3(nul, fd, O_CLOEXEC);
            sys.close(nul);
        } else {
            closed = true;
            sys.close(fd);
        }
    }

    /** Closes the listener: every call still waiting, and every later one, fails (ENOSYS). */
    synchronized void close() {
        if (!closed) {
            closed = true;
            sys.close(fd);
        }
    }
}
