package dev.magus.landlock.sys;

import com.sun.jna.Memory;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;
import dev.magus.policy.path.DirectoryReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Lists a directory with {@code getdents64}, which returns each name with its type, so a walk
 * costs a few system calls per directory and none per file ({@code DirectoryStream} gives names
 * only, {@code Files.walkFileTree} stats every entry). Installed for the control-file audit
 * through META-INF/services. {@code fstatat} rather than {@code statx}: a raw system call passes
 * four arguments; both {@code struct stat} layouts (x86_64, aarch64) are here.
 *
 * <p>Names are bytes to the kernel: UTF-8 is used only when the JVM uses it for file names. A
 * directory holding a name not well-formed there is not listed at all ({@link #list} answers
 * empty), so the audit holds it unaudited and fails the run (MGS2002) rather than miss what is
 * beneath it ({@code NonUtf8NameInRunsTest}). The pure-Java reader does the same.
 */
public final class GetdentsReader implements DirectoryReader {
    private static final boolean X86_64 = Platform.ARCH.equals("x86-64");
    private static final int O_DIRECTORY = X86_64 ? 0x10000 : 0x4000;
    private static final int O_NOFOLLOW = X86_64 ? 0x20000 : 0x8000;
    private static final long AT_FDCWD = -100;
    private static final long AT_SYMLINK_NOFOLLOW = 0x100;

    // struct stat offsets: {dev, ino, nlink, mode, size, mtime sec, mtime nsec, ctime sec, ctime nsec}
    private static final int ST_DEV = 0;
    private static final int ST_INO = 8;
    private static final int ST_NLINK = X86_64 ? 16 : 20;
    private static final int ST_MODE = X86_64 ? 24 : 16;
    private static final int ST_SIZE = 48;
    private static final int ST_MTIME = 88;
    private static final int ST_CTIME = 104;
    private static final int STAT_SIZE = 256;

    private static final int DT_DIR = 4;
    private static final int DT_REG = 8;
    private static final int DT_LNK = 10;
    private static final int DT_UNKNOWN = 0;

    private static final int DIRENT_BUFFER = 64 * 1024;

    private static final ThreadLocal<Buffers> BUFFERS = ThreadLocal.withInitial(Buffers::new);

    private static final class Buffers {
        final Memory dirents = new Memory(DIRENT_BUFFER);
        final byte[] direntBytes = new byte[DIRENT_BUFFER];
        final Memory stat = new Memory(STAT_SIZE);
        final Memory path = new Memory(JvmNames.PATH_MAX + 1);
    }

    /** Public for {@link java.util.ServiceLoader}; holds nothing. */
    public GetdentsReader() {
    }

    @Override
    public boolean available() {
        return Natives.syscalls().available();
    }

    @Override
    public Optional<Stamp> stat(String absolutePath) {
        byte[] path = JvmNames.encode(absolutePath);
        if (path == null) {
            return Optional.empty();
        }
        Buffers b = BUFFERS.get();
        b.path.write(0, path, 0, path.length);
        long r = Natives.syscalls().fstatat(AT_FDCWD, Pointer.nativeValue(b.path), Pointer.nativeValue(b.stat),
                AT_SYMLINK_NOFOLLOW);
        return r == 0 ? Optional.of(stamp(b.stat)) : Optional.empty();
    }

    /** {@link #lstatInto}'s answer for a path that cannot be passed to the kernel (no encoding, too long). */
    private static final long UNENCODABLE = Long.MIN_VALUE;

    /** {@code fstatat(AT_SYMLINK_NOFOLLOW)} of {@code absolutePath} into {@code b.stat}: 0, {@code -errno}, or {@link #UNENCODABLE}. */
    private static long lstatInto(Buffers b, String absolutePath) {
        byte[] path = JvmNames.encode(absolutePath);
        if (path == null || path.length >= JvmNames.PATH_MAX) {
            return UNENCODABLE;
        }
        b.path.write(0, path, 0, path.length);
        return Natives.syscalls().fstatat(AT_FDCWD, Pointer.nativeValue(b.path), Pointer.nativeValue(b.stat),
                AT_SYMLINK_NOFOLLOW);
    }

    @Override
    public Presence presence(String absolutePath) {
        Buffers b = BUFFERS.get();
        long r = lstatInto(b, absolutePath);
        if (r == UNENCODABLE) {
            return Presence.UNSURE;
        }
        if (r == 0) {
            return Presence.FOUND;
        }
        return r == -Errno.ENOENT ? Presence.NO_ENTRY : r == -Errno.ENOTDIR ? Presence.NOT_A_DIRECTORY : Presence.UNSURE;
    }

    /** One {@code fstatat(AT_SYMLINK_NOFOLLOW)}: the kind from {@code st_mode}, ABSENT on ENOENT/ENOTDIR, else UNSURE. */
    @Override
    public Lstat lstat(String absolutePath) {
        Buffers b = BUFFERS.get();
        long r = lstatInto(b, absolutePath);
        if (r == UNENCODABLE) {
            return Lstat.UNSURE;
        }
        if (r == 0) {
            return switch (b.stat.getInt(ST_MODE) & Stamp.S_IFMT) {
                case Stamp.S_IFDIR -> Lstat.DIRECTORY;
                case Stamp.S_IFREG -> Lstat.FILE;
                case Stamp.S_IFLNK -> Lstat.LINK;
                default -> Lstat.OTHER;
            };
        }
        return r == -Errno.ENOENT || r == -Errno.ENOTDIR ? Lstat.ABSENT : Lstat.UNSURE;
    }

    @Override
    public Optional<Listing> list(String absolutePath) {
        byte[] path = JvmNames.encode(absolutePath);
        if (path == null) {
            return Optional.empty();
        }
        Buffers b = BUFFERS.get();
        Syscalls sys = Natives.syscalls();
        int fd = sys.open(path, LibC.O_RDONLY | O_DIRECTORY | O_NOFOLLOW | LibC.O_CLOEXEC, 0);
        if (fd < 0) {
            return Optional.empty();
        }
        try {
            List<Entry> entries = new ArrayList<>();
            while (true) {
                long n = sys.getdents64(fd, Pointer.nativeValue(b.dirents), DIRENT_BUFFER);
                if (n < 0) {
                    return Optional.empty();
                }
                if (n == 0) {
                    break;
                }
                b.dirents.read(0, b.direntBytes, 0, (int) n);
                if (!parse(b.direntBytes, (int) n, entries)) {
                    return Optional.empty();
                }
            }
            return Optional.of(new Listing(entries));
        } finally {
            sys.close(fd);
        }
    }

    /**
     * {@code struct linux_dirent64}: u64 ino, s64 off, u16 reclen, u8 type, name NUL-terminated.
     *
     * @return false when a name cannot be decoded (the listing would not be faithful)
     */
    static boolean parse(byte[] buf, int n, List<Entry> out) {
        int off = 0;
        while (off < n) {
            int reclen = (buf[off + 16] & 0xff) | (buf[off + 17] & 0xff) << 8;
            int type = buf[off + 18] & 0xff;
            int nameStart = off + 19;
            int nameEnd = nameStart;
            int limit = off + reclen;
            while (nameEnd < limit && buf[nameEnd] != 0) {
                nameEnd++;
            }
            int len = nameEnd - nameStart;
            boolean dot = len == 1 && buf[nameStart] == '.';
            boolean dotdot = len == 2 && buf[nameStart] == '.' && buf[nameStart + 1] == '.';
            if (!dot && !dotdot) {
                String name = JvmNames.decode(buf, nameStart, len);
                if (name == null) {
                    return false;
                }
                out.add(new Entry(name, kind(type), littleEndianLong(buf, off)));
            }
            if (reclen <= 0) {
                return true;
            }
            off += reclen;
        }
        return true;
    }

    /** {@code d_ino}: the platforms this runs on (x86_64, aarch64 Linux) are little-endian. */
    private static long littleEndianLong(byte[] b, int at) {
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = v << 8 | (b[at + i] & 0xff);
        }
        return v;
    }

    private static Kind kind(int type) {
        return switch (type) {
            case DT_DIR -> Kind.DIRECTORY;
            case DT_REG -> Kind.FILE;
            case DT_LNK -> Kind.LINK;
            case DT_UNKNOWN -> Kind.UNKNOWN;
            default -> Kind.OTHER;
        };
    }

    private static Stamp stamp(Memory st) {
        long nlink = X86_64 ? st.getLong(ST_NLINK) : st.getInt(ST_NLINK) & 0xffffffffL;
        return new Stamp(st.getLong(ST_DEV), st.getLong(ST_INO), st.getInt(ST_MODE), nlink, st.getLong(ST_SIZE),
                st.getLong(ST_MTIME) * 1_000_000_000L + st.getLong(ST_MTIME + 8),
                st.getLong(ST_CTIME) * 1_000_000_000L + st.getLong(ST_CTIME + 8));
    }
}
