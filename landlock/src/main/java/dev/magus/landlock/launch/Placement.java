package dev.magus.landlock.launch;

import dev.magus.landlock.sys.Errno;
import dev.magus.landlock.sys.LibC;
import dev.magus.landlock.sys.Natives;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Where a confined child is born: a cgroup v2 of threaded type, whose {@code cgroup.threads}
 * is opened here, by magus, before the spawn. The launch thread moves itself there with one
 * {@code write} before it calls {@code posix_spawn}, so the child starts in that cgroup and has
 * run nothing of its own anywhere else; the thread ends right after the spawn, so no other
 * thread of magus is ever in it. (A process's children are born in its forking thread's
 * cgroup; only threaded cgroups let one thread of a process live apart from the others.)
 *
 * <p>A spawn that does not run on a launch thread of its own (mode off) is never moved, and
 * a move that fails does not stop the spawn: the child is then where magus is, which the
 * caller sees by reading the child's {@code /proc/PID/cgroup}, never by trusting this.
 */
public final class Placement implements AutoCloseable {
    private final Path cgroup;
    private int fd;

    private Placement(Path cgroup, int fd) {
        this.cgroup = cgroup;
        this.fd = fd;
    }

    /**
     * Opens {@code cgroup}'s {@code cgroup.threads} for the launch thread to write.
     *
     * @throws java.io.IOException naming the file and why, when it cannot be opened
     */
    public static Placement open(Path cgroup) throws java.io.IOException {
        byte[] path = (cgroup.resolve("cgroup.threads") + "\0").getBytes(StandardCharsets.UTF_8);
        var sys = Natives.syscalls();
        int fd = sys.open(path, LibC.O_WRONLY | LibC.O_CLOEXEC, 0);
        if (fd < 0) {
            throw new java.io.IOException("cannot open " + cgroup.resolve("cgroup.threads") + ": "
                    + Errno.describe(sys.errno()));
        }
        return new Placement(cgroup, fd);
    }

    /** The cgroup a child spawned with this placement is meant to be born in. */
    public Path cgroup() {
        return cgroup;
    }

    /** The open descriptor, for the launch sequence; -1 once closed. */
    int fd() {
        return fd;
    }

    @Override
    public synchronized void close() {
        if (fd >= 0) {
            Natives.syscalls().close(fd);
            fd = -1;
        }
    }
}
