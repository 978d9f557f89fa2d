package dev.magus.landlock.launch;

import com.sun.jna.Memory;
import dev.magus.landlock.sys.Errno;
import dev.magus.landlock.sys.LibC;
import dev.magus.landlock.sys.Natives;
import dev.magus.landlock.sys.Syscalls;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The pipes of one spawn: magus's ends are kept, the child's are closed after the spawn (by
 * the launch sequence once it has run, else here). Every descriptor is close-on-exec: the child
 * gets its ends only through the spawn's {@code dup2}s.
 */
final class Pipes {
    private static final Syscalls SYS = Natives.syscalls();

    int childIn = -1;
    int childOut = -1;
    int childErr = -1;
    int parentIn = -1;
    int parentOut = -1;
    int parentErr = -1;
    private boolean handedOver;

    static Pipes open(Stdio stdio) {
        Pipes p = new Pipes();
        if (stdio == Stdio.INHERIT) {
            return p;
        }
        try (Memory fds = new Memory(8)) {
            if (stdio == Stdio.PIPES) {
                pipe(fds);
                p.childIn = fds.getInt(0);
                p.parentIn = fds.getInt(4);
            } else if (stdio instanceof Stdio.InputFrom from) {
                // A copy of the caller's, so the launch sequence can close it as it closes a pipe end.
                long dup = SYS.fcntl(from.fd(), LibC.F_DUPFD_CLOEXEC, 3);
                if (dup < 0) {
                    throw new IllegalStateException("dup of descriptor " + from.fd() + " for the child's standard input: "
                            + Errno.describe((int) -dup));
                }
                p.childIn = (int) dup;
            } else {
                int devNull = SYS.open(nul("/dev/null"), LibC.O_RDONLY | LibC.O_CLOEXEC, 0);
                if (devNull < 0) {
                    throw new IllegalStateException("open /dev/null: " + Errno.describe(SYS.errno()));
                }
                p.childIn = devNull;
            }
            pipe(fds);
            p.parentOut = fds.getInt(0);
            p.childOut = fds.getInt(4);
            pipe(fds);
            p.parentErr = fds.getInt(0);
            p.childErr = fds.getInt(4);
            return p;
        } catch (RuntimeException e) {
            p.closeChildEnds();
            p.closeParentEnds();
            throw e;
        }
    }

    private static void pipe(Memory fds) {
        if (SYS.pipe2(fds, LibC.O_CLOEXEC) != 0) {
            throw new IllegalStateException("pipe2 failed: " + Errno.describe(SYS.errno()));
        }
    }

    private static byte[] nul(String s) {
        return (s + "\0").getBytes(StandardCharsets.UTF_8);
    }

    /** The child's ends were closed by the launch sequence. */
    void childEndsClosed() {
        childIn = -1;
        childOut = -1;
        childErr = -1;
    }

    void closeChildEnds() {
        childIn = closeIfOpen(childIn);
        childOut = closeIfOpen(childOut);
        childErr = closeIfOpen(childErr);
    }

    /** Closes magus's ends, unless they were handed over to a {@link Child} as streams. */
    void closeParentEnds() {
        if (!handedOver) {
            parentIn = closeIfOpen(parentIn);
            parentOut = closeIfOpen(parentOut);
            parentErr = closeIfOpen(parentErr);
        }
    }

    OutputStream parentIn() {
        handedOver = true;
        return parentIn >= 0 ? new FdStreams.Out(parentIn) : FdStreams.closedOutput();
    }

    InputStream parentOut() {
        handedOver = true;
        return parentOut >= 0 ? new FdStreams.In(parentOut) : FdStreams.emptyInput();
    }

    InputStream parentErr() {
        handedOver = true;
        return parentErr >= 0 ? new FdStreams.In(parentErr) : FdStreams.emptyInput();
    }

    private static int closeIfOpen(int fd) {
        if (fd >= 0) {
            SYS.close(fd);
        }
        return -1;
    }
}
