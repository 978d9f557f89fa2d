package dev.magus.landlock.compile;

import dev.magus.landlock.abi.AbiRights;
import dev.magus.landlock.sys.Landlock;
import dev.magus.policy.fs.Access;
import dev.magus.policy.fs.AccessMode;

/** Maps a rule's read/write/exec bits to Landlock rights for one path. Pure. */
public final class Rights {
    private Rights() {
    }

    private static final long WRITE_DIR = Landlock.REMOVE_DIR | Landlock.REMOVE_FILE | Landlock.MAKE_CHAR
            | Landlock.MAKE_DIR | Landlock.MAKE_REG | Landlock.MAKE_SOCK | Landlock.MAKE_FIFO | Landlock.MAKE_BLOCK
            | Landlock.MAKE_SYM | Landlock.REFER;

    /**
     * The rights to grant on a path of {@code kind} for {@code mode}, limited to what {@code abi}
     * knows and, for anything but a directory, to the rights of a file (the kernel refuses the
     * rest with EINVAL). Each bit grants its access alone: read never implies execute.
     *
     * <p>Write carries {@code IOCTL_DEV} for device nodes and for directories, so that devices
     * beneath a written directory ({@code /dev/pts} for an interactive run) stay usable; a child
     * cannot make device nodes of its own (see {@code Capabilities.KEPT}).
     */
    public static long of(AccessMode mode, FileKind kind, int abi) {
        boolean dir = kind == FileKind.DIRECTORY;
        long r = 0;
        if (mode.has(Access.READ)) {
            r |= Landlock.READ_FILE;
            if (dir) {
                r |= Landlock.READ_DIR;
            }
        }
        if (mode.has(Access.WRITE)) {
            r |= Landlock.WRITE_FILE | Landlock.TRUNCATE;
            if (dir) {
                r |= WRITE_DIR;
            }
            if (dir || kind == FileKind.DEVICE) {
                r |= Landlock.IOCTL_DEV;
            }
        }
        if (mode.has(Access.EXEC)) {
            r |= Landlock.EXECUTE;
        }
        r &= AbiRights.handledFs(abi);
        if (!dir) {
            r &= Landlock.FILE_RIGHTS;
        }
        return r;
    }
}
