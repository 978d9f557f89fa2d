package dev.magus.landlock.sys;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import dev.magus.policy.path.KernelLookup;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;

/**
 * Lets the kernel resolve an existing path in three system calls, whatever its length:
 * {@code openat2(path, O_PATH|O_CLOEXEC, RESOLVE_NO_MAGICLINKS)} follows every link as any
 * other call would, {@code readlinkat(FDS, "N")} reads where it led ({@code FDS}: one
 * descriptor of {@code /proc/self/fd} per process), {@code close(N)}. Installed for
 * {@link dev.magus.policy.path.PathResolver} through META-INF/services. It says nothing (the resolver walks) whenever the kernel cannot say exactly what the walk
 * would: the open fails (including on a magic link, whose object may have no reachable name),
 * the readlink fails or fills its buffer, the answer is not absolute or ends with
 * {@code " (deleted)"} (which a real name may also end with), the path is not UTF-8 where the
 * JVM's file names are not, or holds a NUL; and until something else loaded the natives
 * ({@link Natives#ready()}): a command that checks a few paths must not pay JNA's start-up. An
 * {@code O_PATH} descriptor opens no file, and Landlock does not check it.
 */
public final class ProcFdLookup implements KernelLookup {

    private static final byte[] FD_DIR = "/proc/self/fd/".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FDS_PATH = "/proc/self/fd\0".getBytes(StandardCharsets.US_ASCII);
    private static final int O_DIRECTORY = com.sun.jna.Platform.ARCH.equals("x86-64") ? 0x10000 : 0x4000;
    /** Not opened yet. */
    private static final int UNOPENED = -2;
    /** This process's {@code /proc/self/fd} ({@code O_PATH}), opened at the first lookup and never closed; -1 when it could not be. */
    private static volatile int fds = UNOPENED;
    /**
     * The file {@link #fds} was opened on ({@code st_dev}, {@code st_ino}), checked before each
     * answer read beneath it: were the number ever closed by some other code's mistake and
     * reused for another directory, a name {@code N} there (a link a run planted) would be
     * taken for where a policy path leads. On a mismatch the descriptor is given up and the
     * whole path read.
     */
    private static volatile long[] fdsIdentity;
    private static final byte[] DELETED = " (deleted)".getBytes(StandardCharsets.US_ASCII);

    /** Per thread, so that a lookup allocates no buffer: the descriptor's link name and the answer. */
    private static final ThreadLocal<Buffers> BUFFERS = ThreadLocal.withInitial(Buffers::new);

    private static final long AT_FDCWD = -100;
    private static final long RESOLVE_NO_MAGICLINKS = 0x02;
    private static final long RESOLVE_NO_SYMLINKS = 0x04;
    /** {@code struct open_how}: u64 flags, u64 mode, u64 resolve. */
    private static final int OPEN_HOW = 24;
    /** Set once openat2 says ENOSYS: this kernel cannot answer exactly, so never ask again. */
    private static volatile boolean unsupported;

    private static final class Buffers {
        /** {@code struct open_how}, then the path: native, as openat2 reads both through pointers. */
        final Memory request = openHowAndPath(RESOLVE_NO_MAGICLINKS);
        /** The same with no link followed at all, for {@link #unlinked}. */
        final Memory noLinks = openHowAndPath(RESOLVE_NO_SYMLINKS);
        /** {@code /proc/self/fd/}, room for any int and a NUL. */
        final byte[] fdLink = Arrays.copyOf(FD_DIR, FD_DIR.length + 11);
        /** A descriptor's number as a name beneath {@code /proc/self/fd}, and a NUL. */
        final byte[] fdName = new byte[12];
        /** The path asked about, NUL-terminated, before it is copied next to {@code open_how}. */
        final byte[] name = new byte[JvmNames.PATH_MAX];
        /** One more than any answer, so a full buffer means cut short. */
        final byte[] target = new byte[JvmNames.PATH_MAX + 1];
    }

    /** Public for {@link java.util.ServiceLoader}; holds nothing. */
    public ProcFdLookup() {
    }

    @Override
    public Optional<String> realPath(String absolutePath) {
        // The cheap refusals first: where the natives are not loaded, every lookup ends here.
        if (unsupported || !Natives.ready()) {
            return Optional.empty();
        }
        Buffers b = BUFFERS.get();
        int len = JvmNames.encodeInto(absolutePath, b.name);
        if (len < 0 || len > JvmNames.PATH_MAX) {
            return Optional.empty();
        }
        b.request.write(OPEN_HOW, b.name, 0, len);
        long base = Pointer.nativeValue(b.request);
        Syscalls sys = Natives.syscalls();
        int fd = (int) sys.openat2(AT_FDCWD, base + OPEN_HOW, base, OPEN_HOW);
        if (fd < 0) {
            if (fd == -Errno.ENOSYS) {
                unsupported = true;
            }
            return Optional.empty();
        }
        long n;
        try {
            int dir = fds(sys);
            if (dir >= 0 && !Arrays.equals(FdStat.identity(dir), fdsIdentity)) {
                dir = giveUp(dir);
            }
            n = dir >= 0 ? sys.readlinkat(dir, fdName(b.fdName, fd), b.target, b.target.length)
                    : sys.readlink(fdLink(b.fdLink, fd), b.target, b.target.length);
        } finally {
            sys.close(fd);
        }
        if (n <= 0 || n >= b.target.length || b.target[0] != '/' || endsWith(b.target, (int) n, DELETED)) {
            return Optional.empty();
        }
        return Optional.ofNullable(JvmNames.decode(b.target, 0, (int) n));
    }

    /**
     * {@code openat2(path, O_PATH|O_CLOEXEC, RESOLVE_NO_SYMLINKS)} and {@code close}: the kernel
     * walks the path following no link at all and fails with ELOOP at the first one (magic
     * ones too), so success means every component exists now and none is a link. Nothing is
     * read back, so neither {@code /proc/self/fd} nor its identity check is involved: two system
     * calls, against four for {@link #realPath}.
     */
    @Override
    public Unlinked unlinked(String plainPath) {
        if (unsupported || !Natives.ready()) {
            return Unlinked.UNKNOWN;
        }
        Buffers b = BUFFERS.get();
        int len = JvmNames.encodeInto(plainPath, b.name);
        if (len < 0 || len > JvmNames.PATH_MAX) {
            return Unlinked.UNKNOWN;
        }
        b.noLinks.write(OPEN_HOW, b.name, 0, len);
        long base = Pointer.nativeValue(b.noLinks);
        Syscalls sys = Natives.syscalls();
        int fd = (int) sys.openat2(AT_FDCWD, base + OPEN_HOW, base, OPEN_HOW);
        if (fd >= 0) {
            sys.close(fd);
            return Unlinked.YES;
        }
        switch (-fd) {
            case Errno.ELOOP:
                return Unlinked.LINKED;
            case Errno.ENOENT:
            case Errno.ENOTDIR:
                return Unlinked.ABSENT;
            case Errno.ENOSYS:
                unsupported = true;
                return Unlinked.UNKNOWN;
            default:
                return Unlinked.UNKNOWN;
        }
    }

    private static Memory openHowAndPath(long resolve) {
        Memory m = new Memory(OPEN_HOW + JvmNames.PATH_MAX);
        m.setLong(0, LibC.O_PATH | LibC.O_CLOEXEC);
        m.setLong(8, 0);
        m.setLong(16, resolve);
        return m;
    }

    /**
     * This process's {@code /proc/self/fd}, opened once ({@code O_PATH|O_DIRECTORY|O_CLOEXEC}:
     * no child inherits it, and the launcher closes every descriptor above 2 in a child anyway);
     * -1 when it cannot be opened, and the whole path is read. {@code self} is resolved
     * at the open, to this process: its descriptor table, shared by every thread.
     */
    private static int fds(Syscalls sys) {
        int d = fds;
        if (d != UNOPENED) {
            return d;
        }
        synchronized (ProcFdLookup.class) {
            if (fds == UNOPENED) {
                int opened = sys.open(FDS_PATH, LibC.O_PATH | O_DIRECTORY | LibC.O_CLOEXEC, 0);
                long[] identity = opened >= 0 ? FdStat.identity(opened) : null;
                if (opened >= 0 && identity == null) {
                    sys.close(opened);
                }
                fdsIdentity = identity;
                fds = identity != null ? opened : -1;
            }
            return fds;
        }
    }

    /** No descriptor of {@code /proc/self/fd} from now on ({@code dir} is not it any more, so not closed here); -1. */
    private static int giveUp(int dir) {
        synchronized (ProcFdLookup.class) {
            if (fds == dir) {
                fds = -1;
            }
        }
        return -1;
    }

    /**
     * For tests: forgets the descriptor as if its number now named {@code other}'s file, as a
     * reuse after a stray close would; the next lookup must see the mismatch.
     */
    static void pretendReusedFor(int other) {
        synchronized (ProcFdLookup.class) {
            fds = other;
        }
    }

    /** For tests: the next lookup opens {@code /proc/self/fd} anew (the one before, if any, stays open). */
    static void reopen() {
        synchronized (ProcFdLookup.class) {
            fds = UNOPENED;
            fdsIdentity = null;
        }
    }

    /** For tests: the descriptor lookups read beneath now; -1 when none, {@value #UNOPENED} before the first. */
    static int descriptor() {
        return fds;
    }

    /** {@code fd} in decimal and a NUL, written into {@code name}. */
    static byte[] fdName(byte[] name, int fd) {
        int digits = 1;
        for (int v = fd; v >= 10; v /= 10) {
            digits++;
        }
        name[digits] = 0;
        for (int i = digits - 1, v = fd; i >= 0; i--, v /= 10) {
            name[i] = (byte) ('0' + v % 10);
        }
        return name;
    }

    /** {@code /proc/self/fd/<fd>} and a NUL, written into {@code link} after its prefix. */
    private static byte[] fdLink(byte[] link, int fd) {
        int digits = 1;
        for (int v = fd; v >= 10; v /= 10) {
            digits++;
        }
        int end = FD_DIR.length + digits;
        link[end] = 0;
        for (int i = end - 1, v = fd; i >= FD_DIR.length; i--, v /= 10) {
            link[i] = (byte) ('0' + v % 10);
        }
        return link;
    }

    private static boolean endsWith(byte[] bytes, int n, byte[] suffix) {
        return n >= suffix.length
                && Arrays.equals(bytes, n - suffix.length, n, suffix, 0, suffix.length);
    }
}
