package dev.magus.orchestrator.binding;

import dev.magus.landlock.sys.Errno;
import dev.magus.landlock.sys.Natives;
import dev.magus.landlock.sys.NoLinkOpen;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A checked, resolved path held open ({@code O_PATH}, no link at any component), so that what is
 * opened afterwards is what was checked: a component swapped for a link after the check makes the
 * open fail (ELOOP) instead of reaching the link's target. Further operations name the object
 * through {@code /proc/self/fd/N}, which the kernel resolves to the open descriptor itself, and one
 * last name beneath it, opened without following a link.
 */
final class Pinned implements AutoCloseable {
    private final int fd;
    private Pinned(int fd) {
        this.fd = fd;
    }

    /** Pins {@code resolved}, an absolute path without links. */
    static Pinned open(Path resolved) throws IOException {
        int fd = NoLinkOpen.open(resolved.toString());
        if (fd < 0) {
            if (-fd == Errno.ELOOP) {
                throw new IOException(resolved + " changed after it was checked (a link is on its way now); not opened");
            }
            throw new IOException(resolved + ": " + Errno.name(-fd));
        }
        return new Pinned(fd);
    }

    /** The pinned object itself, as a path the kernel resolves to the descriptor. */
    Path self() {
        return Path.of("/proc/self/fd/" + fd);
    }

    /** {@code name} inside the pinned directory. */
    Path child(Path name) {
        return self().resolve(name.toString());
    }

    @Override
    public void close() {
        Natives.syscalls().close(fd);
    }
}
