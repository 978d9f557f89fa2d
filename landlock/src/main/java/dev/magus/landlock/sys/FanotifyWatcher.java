package dev.magus.landlock.sys;

import com.sun.jna.Memory;
import com.sun.jna.Platform;
import dev.magus.policy.watch.ChangeWatcher;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * {@link ChangeWatcher} with {@code fanotify}: one group per run ({@code FAN_CLASS_NOTIF |
 * FAN_REPORT_DFID_NAME | FAN_NONBLOCK | FAN_CLOEXEC}), a {@code FAN_MARK_FILESYSTEM} mark on
 * each root's filesystem for name events and {@code FAN_ATTRIB}, on directories too (root
 * only: {@code CAP_SYS_ADMIN}, {@code CAP_DAC_READ_SEARCH}). Content events are not asked for:
 * they change no name, the audit reads every control file again, and they fill the queue.
 *
 * <p>{@link Watching#drain} resolves each distinct directory handle once
 * ({@code open_by_handle_at(O_PATH)} on a descriptor of the same filesystem, then
 * {@code readlink} of {@code /proc/self/fd/N}). A directory gone ({@code ESTALE}, or
 * {@code " (deleted)"} with no links) is passed over: its removal was a name event in its
 * parent. Anything else is a {@link Doubt}: an overflowed or malformed queue, a handle of a
 * filesystem not marked, another error, more than {@link #MAX_DIRECTORIES} directories.
 */
public final class FanotifyWatcher implements ChangeWatcher {
    static final int FAN_CLOEXEC = 0x1;
    static final int FAN_NONBLOCK = 0x2;
    static final int FAN_CLASS_NOTIF = 0x0;
    static final int FAN_REPORT_DFID_NAME = 0x400 | 0x800;
    static final int FAN_MARK_ADD = 0x1;
    static final int FAN_MARK_FILESYSTEM = 0x100;
    static final long FAN_ATTRIB = 0x4;
    static final long FAN_MOVED_FROM = 0x40;
    static final long FAN_MOVED_TO = 0x80;
    static final long FAN_CREATE = 0x100;
    static final long FAN_DELETE = 0x200;
    static final long MASK = FAN_ATTRIB | FAN_MOVED_FROM | FAN_MOVED_TO | FAN_CREATE | FAN_DELETE
            | FanotifyRecords.FAN_ONDIR;
    private static final int AT_FDCWD = -100;
    private static final int O_DIRECTORY = Platform.ARCH.equals("x86-64") ? 0x10000 : 0x4000;
    private static final int ESTALE = 116;
    private static final long AT_EMPTY_PATH = 0x1000;
    private static final boolean X86_64 = Platform.ARCH.equals("x86-64");
    private static final int STATFS_SIZE = 120;
    private static final int STATFS_FSID = 56;
    private static final int READ_BUFFER = 64 * 1024;
    /** Past this many distinct directories in one drain, resolving them costs what stamping every one would: a doubt. */
    public static final int MAX_DIRECTORIES = 4096;

    /**
     * Closes drained groups (see {@link Group#close}), one at a time, on a thread that ends
     * after 10 s idle. The process's: a group may be closed by the collector after its run's
     * owner has gone.
     */
    private static final ThreadPoolExecutor CLOSER = closer();

    private static ThreadPoolExecutor closer() {
        ThreadPoolExecutor e = new ThreadPoolExecutor(1, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "magus-fanotify-close");
            t.setDaemon(true);
            return t;
        });
        e.allowCoreThreadTimeOut(true);
        return e;
    }

    /** Public for {@link java.util.ServiceLoader}; holds nothing. */
    public FanotifyWatcher() {
    }

    @Override
    public boolean available() {
        return Natives.syscalls().available();
    }

    @Override
    public Started start(List<Path> roots) {
        Syscalls sys = Natives.syscalls();
        if (!sys.available()) {
            return new Refused(sys.unavailableReason());
        }
        Optional<String> mounted = mountedBeneath(roots);
        if (mounted.isPresent()) {
            return new Refused(mounted.get());
        }
        int fd = sys.fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME | FAN_NONBLOCK | FAN_CLOEXEC,
                LibC.O_RDONLY | LibC.O_CLOEXEC);
        if (fd < 0) {
            return new Refused("fanotify_init: " + sys.describe(sys.errno()));
        }
        Group group = new Group(sys, fd);
        Memory statfs = new Memory(STATFS_SIZE);
        Map<Long, Integer> mountOf = new HashMap<>();
        for (Path root : roots) {
            byte[] path = JvmNames.encode(root.toString());
            if (path == null) {
                group.close();
                return new Refused("a root this JVM cannot name to the kernel: " + root);
            }
            // Not O_PATH: open_by_handle_at takes no O_PATH descriptor as its mount (EBADF).
            int dir = sys.open(path, LibC.O_RDONLY | O_DIRECTORY | LibC.O_CLOEXEC, 0);
            if (dir < 0) {
                int e = sys.errno();
                group.close();
                return new Refused("open " + root + ": " + sys.describe(e));
            }
            if (sys.fstatfs(dir, statfs) != 0) {
                int e = sys.errno();
                sys.close(dir);
                group.close();
                return new Refused("fstatfs " + root + ": " + sys.describe(e));
            }
            long fsid = statfs.getLong(STATFS_FSID);
            Optional<Integer> mount = mountId(dir);
            if (mount.isEmpty()) {
                sys.close(dir);
                group.close();
                return new Refused("no mount id for " + root + " in /proc/self/fdinfo");
            }
            Integer seen = mountOf.putIfAbsent(fsid, mount.get());
            if (seen != null && !seen.equals(mount.get())) {
                // One descriptor per filesystem resolves handles only within its own mount: a
                // directory of the other root's mount would come back as "/" and be passed over.
                sys.close(dir);
                group.close();
                return new Refused("two roots on one filesystem but different mounts (" + seen + ", " + mount.get()
                        + "); " + root + " among them");
            }
            if (group.mounts.containsKey(fsid)) {
                sys.close(dir);
                continue;
            }
            group.mounts.put(fsid, dir);
            if (sys.fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, MASK, AT_FDCWD, path) != 0) {
                int e = sys.errno();
                group.close();
                return new Refused("fanotify_mark " + root + ": " + sys.describe(e));
            }
        }
        return group;
    }

    /**
     * A filesystem mounted beneath a root would need its own mark: refused instead, so the
     * caller walks (from {@code /proc/self/mountinfo}, field 5, octal escapes undone).
     */
    static Optional<String> mountedBeneath(List<Path> roots) {
        byte[] bytes;
        try {
            // Read whole on every call: a rename of a directory above a mount point moves the
            // mount's path in this table without any mount event, so no poll of a held
            // descriptor can say the table is unchanged (security review:
            // FanotifyMountTest).
            bytes = Files.readAllBytes(MOUNTINFO);
        } catch (IOException | RuntimeException e) {
            return Optional.of("cannot read /proc/self/mountinfo: " + e.getMessage());
        }
        return mountedBeneath(roots, bytes);
    }

    private static final Path MOUNTINFO = Path.of("/proc/self/mountinfo");

    /** A verdict of {@link #mountedBeneath(List, byte[])} and the exact mount table it was given. */
    private record Verdict(byte[] mountinfo, Optional<String> answer) {
    }

    /** At most this many root lists are remembered; past it the memo starts again empty. */
    static final int VERDICTS = 64;

    /**
     * The last verdict for each list of roots, by the exact bytes of the mount table it read: in
     * a server every run of a workspace asks about the same roots under the same table, and
     * parsing it (a split and a {@code Path} per mount) was most of this watcher's start
     *. The table is still read on every run; a verdict is reused only for the
     * very same bytes, so any mount or unmount anywhere is judged anew.
     */
    private static final Map<List<Path>, Verdict> VERDICT = new java.util.concurrent.ConcurrentHashMap<>();

    /** {@link #mountedBeneath(List, List)} of the table's bytes, remembered by them ({@link #VERDICT}). */
    static Optional<String> mountedBeneath(List<Path> roots, byte[] mountinfo) {
        Verdict known = VERDICT.get(roots);
        if (known != null && java.util.Arrays.equals(known.mountinfo(), mountinfo)) {
            return known.answer();
        }
        String text;
        try {
            // Strict, as Files.readAllLines was: a table that is not UTF-8 is a refusal, not a guess.
            text = StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(mountinfo)).toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            return Optional.of("cannot read /proc/self/mountinfo: " + e);
        }
        Optional<String> answer = mountedBeneath(roots, text.lines().toList());
        if (VERDICT.size() >= VERDICTS) {
            VERDICT.clear();
        }
        VERDICT.put(List.copyOf(roots), new Verdict(mountinfo, answer));
        return answer;
    }

    static Optional<String> mountedBeneath(List<Path> roots, List<String> mountinfo) {
        for (String line : mountinfo) {
            String[] f = line.split(" ");
            if (f.length < 5) {
                return Optional.of("a line of /proc/self/mountinfo that does not parse: " + line);
            }
            Path point = Path.of(unescape(f[4]));
            for (Path root : roots) {
                if (point.startsWith(root) && !point.equals(root)) {
                    return Optional.of("a filesystem is mounted beneath " + root + " at " + point);
                }
            }
        }
        return Optional.empty();
    }

    private static String unescape(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 3 < s.length() && s.substring(i + 1, i + 4).chars().allMatch(d -> d >= '0' && d <= '7')) {
                b.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static final long STATX_MNT_ID = 0x1000;
    /** {@code struct statx}: 256 bytes; {@code stx_mask} at 0, {@code stx_mnt_id} at 144. */
    private static final int STATX_SIZE = 256;
    private static final int STATX_MNT_ID_OFFSET = 144;

    /**
     * The mount id of open descriptor {@code fd}: {@code statx(fd, "", AT_EMPTY_PATH,
     * STATX_MNT_ID)}, one system call (Linux 5.8; the very {@code real_mount(mnt)->mnt_id} that
     * {@code /proc/self/fdinfo} prints), else, when the kernel does not fill it, from
     * {@code /proc/self/fdinfo}; empty when neither says.
     */
    static Optional<Integer> mountId(int fd) {
        Syscalls sys = Natives.syscalls();
        try (Memory empty = new Memory(1); Memory stx = new Memory(STATX_SIZE)) {
            empty.setByte(0, (byte) 0);
            stx.clear();
            long r = sys.statx(fd, com.sun.jna.Pointer.nativeValue(empty), AT_EMPTY_PATH, STATX_MNT_ID,
                    com.sun.jna.Pointer.nativeValue(stx));
            if (r == 0 && (stx.getInt(0) & STATX_MNT_ID) != 0) {
                long id = stx.getLong(STATX_MNT_ID_OFFSET);
                if (id >= 0 && id <= Integer.MAX_VALUE) {
                    return Optional.of((int) id);
                }
            }
        } catch (RuntimeException e) {
            // fall back to fdinfo
        }
        return mountIdFromFdinfo(fd);
    }

    /** The mount id of open descriptor {@code fd}, from {@code /proc/self/fdinfo}; empty when not found. */
    static Optional<Integer> mountIdFromFdinfo(int fd) {
        try {
            return mountId(Files.readAllLines(Path.of("/proc/self/fdinfo/" + fd), StandardCharsets.US_ASCII));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The {@code mnt_id:} field of an fdinfo file's lines. */
    static Optional<Integer> mountId(List<String> fdinfo) {
        for (String line : fdinfo) {
            if (line.startsWith("mnt_id:")) {
                try {
                    return Optional.of(Integer.parseInt(line.substring("mnt_id:".length()).trim()));
                } catch (NumberFormatException e) {
                    return Optional.empty();
                }
            }
        }
        return Optional.empty();
    }

    /** One run's group: the fanotify descriptor and a descriptor per marked filesystem. */
    private static final class Group implements Watching {
        private final Syscalls sys;
        private final Map<Long, Integer> mounts = new LinkedHashMap<>();
        private int fd;

        Group(Syscalls sys, int fd) {
            this.sys = sys;
            this.fd = fd;
        }

        @Override
        public synchronized Drained drain() {
            if (fd < 0) {
                return new Doubt("the watch was closed");
            }
            try {
                return read();
            } finally {
                close();
            }
        }

        private Drained read() {
            Memory buffer = new Memory(READ_BUFFER);
            byte[] bytes = new byte[READ_BUFFER];
            List<FanotifyRecords.Event> raw = new ArrayList<>();
            while (true) {
                long n = sys.read(fd, buffer, READ_BUFFER);
                if (n < 0) {
                    int e = sys.errno();
                    if (e == Errno.EAGAIN) {
                        break;
                    }
                    if (e == Errno.EINTR) {
                        continue;
                    }
                    return new Doubt("read from fanotify: " + sys.describe(e));
                }
                if (n == 0) {
                    break;
                }
                buffer.read(0, bytes, 0, (int) n);
                FanotifyRecords.Batch batch = FanotifyRecords.parse(bytes, (int) n);
                if (batch.malformed().isPresent()) {
                    return new Doubt("fanotify events that do not parse: " + batch.malformed().get());
                }
                for (FanotifyRecords.Event e : batch.events()) {
                    if (e.overflow()) {
                        return new Doubt("the kernel's fanotify queue overflowed (events were lost)");
                    }
                    raw.add(e);
                }
            }
            Map<FanotifyRecords.Handle, Optional<Path>> resolved = new HashMap<>();
            List<Event> out = new ArrayList<>(raw.size());
            Memory handle = new Memory(8 + 128);
            byte[] link = new byte[JvmNames.PATH_MAX + 1];
            for (FanotifyRecords.Event e : raw) {
                FanotifyRecords.Handle h = e.directory().orElseThrow();
                Optional<Path> dir = resolved.get(h);
                if (dir == null) {
                    if (resolved.size() >= MAX_DIRECTORIES) {
                        return new Doubt("more than " + MAX_DIRECTORIES + " directories changed on the watched filesystems");
                    }
                    Integer mount = mounts.get(h.fsid());
                    if (mount == null) {
                        return new Doubt("an event of a filesystem not marked (" + h + ")");
                    }
                    byte[] hb = h.bytes();
                    if (hb.length > 128) {
                        return new Doubt("a file handle of " + hb.length + " bytes");
                    }
                    handle.setInt(0, hb.length);
                    handle.setInt(4, h.type());
                    handle.write(8, hb, 0, hb.length);
                    Resolution r = resolve(mount, handle, link);
                    if (r.doubt().isPresent()) {
                        return new Doubt(r.doubt().get());
                    }
                    dir = r.path();
                    resolved.put(h, dir);
                }
                if (dir.isPresent()) {
                    out.add(new Event(dir.get(), e.name(), e.mask()));
                }
            }
            return new Events(out);
        }

        private record Resolution(Optional<Path> path, Optional<String> doubt) {
        }

        /** The directory's path now; empty when it no longer exists; a doubt when it cannot be told. */
        private Resolution resolve(int mount, Memory handle, byte[] link) {
            int dir = -1;
            for (int attempt = 0; attempt < 2 && dir < 0; attempt++) {
                dir = sys.open_by_handle_at(mount, handle, LibC.O_PATH | LibC.O_CLOEXEC);
                if (dir < 0) {
                    int e = sys.errno();
                    if (e != ESTALE) {
                        return new Resolution(Optional.empty(), Optional.of("open_by_handle_at: " + sys.describe(e)));
                    }
                }
            }
            if (dir < 0) {
                // Twice ESTALE: the directory is gone (removed, or its inode reused).
                return new Resolution(Optional.empty(), Optional.empty());
            }
            try {
                byte[] proc = ("/proc/self/fd/" + dir + "\0").getBytes(StandardCharsets.US_ASCII);
                long n = sys.readlink(proc, link, link.length);
                if (n <= 0 || n >= link.length) {
                    return new Resolution(Optional.empty(), Optional.of("readlink of a resolved directory: "
                            + (n < 0 ? sys.describe(sys.errno()) : n + " bytes")));
                }
                String text = JvmNames.decode(link, 0, (int) n);
                if (text == null) {
                    return new Resolution(Optional.empty(),
                            Optional.of("a directory whose path this JVM cannot decode"));
                }
                if (text.endsWith(" (deleted)")) {
                    // The kernel's mark of an unlinked directory, or a live one named so: its link count says.
                    long links = links(dir);
                    if (links == 0) {
                        return new Resolution(Optional.empty(), Optional.empty());
                    }
                    if (links < 0) {
                        return new Resolution(Optional.empty(), Optional.of("fstat of a directory whose path ends in"
                                + " \" (deleted)\": " + sys.describe((int) -links)));
                    }
                }
                if (!text.startsWith("/")) {
                    return new Resolution(Optional.empty(), Optional.of("a directory outside this process's root: " + text));
                }
                return new Resolution(Optional.of(Path.of(text)), Optional.empty());
            } finally {
                sys.close(dir);
            }
        }

        /** {@code st_nlink} of the open {@code fd} ({@code fstatat(fd, "", AT_EMPTY_PATH)}), or {@code -errno}. */
        private long links(int fd) {
            Memory empty = new Memory(1);
            empty.setByte(0, (byte) 0);
            Memory st = new Memory(256);
            long r = sys.fstatat(fd, com.sun.jna.Pointer.nativeValue(empty), com.sun.jna.Pointer.nativeValue(st),
                    AT_EMPTY_PATH);
            if (r != 0) {
                return r < 0 ? r : -Errno.EINVAL;
            }
            return X86_64 ? st.getLong(16) : st.getInt(20) & 0xffffffffL;
        }

        @Override
        public synchronized void close() {
            if (fd < 0) {
                return;
            }
            int group = fd;
            fd = -1;
            for (int m : mounts.values()) {
                sys.close(m);
            }
            mounts.clear();
            // Closing the group waits for the kernel to free its marks (an SRCU grace period:
            // milliseconds, more on a loaded machine) and nothing waits for that: off the run's path.
            CLOSER.execute(() -> sys.close(group));
        }
    }
}
