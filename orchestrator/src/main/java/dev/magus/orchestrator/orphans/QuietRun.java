package dev.magus.orchestrator.orphans;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongPredicate;

/**
 * Whether the end of a run may skip the pass over {@code /proc} for strays (issue 15: that pass,
 * one {@code /proc/PID/stat} read per process on the host, was the largest part of the
 * server's CPU per run): when magus, the child subreaper of everything it starts, has no child
 * but the ones its launcher started and still owns (run leaders, the watchdog).
 *
 * <p>Why that suffices: once a run's child is reaped, each of its descendants still alive has
 * a topmost living ancestor whose parent died, and the kernel re-parented that ancestor to the
 * nearest subreaper, magus, when the parent exited (before the parent could be reaped). A
 * zombie of the run's group waiting to be reaped is a child of magus too. So a run that left
 * anything behind leaves magus a child its launcher does not own, and then the pass runs as
 * before. The children are read from every task's {@code /proc/self/task/TID/children}: the
 * kernel gives an orphan to one living thread of the subreaper, and moves it to the first living
 * one (the leader) when that thread ends; a list of a thread that ended reads empty, not as an
 * error. So the leader's list is read last, each list in one read, and two whole passes must
 * agree ({@link #quiet(LongPredicate)}); anything unreadable, or a kernel without the
 * {@code children} file, makes the answer "not quiet".
 *
 * <p>An earlier form compared the kernel's last pid ({@code /proc/loadavg}) with the child's,
 * guarding against a lap of the pid space with {@code /proc/stat}'s fork count; a failing
 * {@code clone3} spends a pid without counting a fork, so a confined child could lap the space
 * unseen and hide a stray (security review, issue 15). This form counts nothing.
 */
final class QuietRun {
    private static final Path OWN_TASKS = Path.of("/proc/self/task");
    /** Larger than any children list magus can have; a read that fills it is a doubt. */
    private static final int READ = 64 * 1024;

    private QuietRun() {
    }

    /**
     * One pass: the tasks read (leader last) and every child they listed, both sorted. Its
     * equals and hashCode are written out: a record's own are linked at their first call
     * ({@code ObjectMethods} bootstrap), which cost a one-shot run about 5 ms (issue 15).
     */
    record Pass(List<Long> tasks, List<Long> children) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Pass p && tasks.equals(p.tasks) && children.equals(p.children);
        }

        @Override
        public int hashCode() {
            return 31 * tasks.hashCode() + children.hashCode();
        }
    }

    /**
     * Whether every child of this process is one {@code owned} says the launcher owns; false on
     * any doubt. Two whole passes must agree: a child reaped while a list was read can make the
     * kernel skip the one after it (it resumes a list by position when the previous pid is no
     * longer a child), and a thread that ended between passes may have handed its children on;
     * either way the second pass differs from the first.
     */
    static boolean quiet(LongPredicate owned) {
        long self = ProcessHandle.current().pid();
        try (Held held = new Held()) {
            Optional<Pass> first = pass(OWN_TASKS, self, held);
            if (first.isEmpty() || !quiet(first.get().children(), owned)) {
                return false;
            }
            // The register is asked again after the last read: a pid the first pass saw as the
            // launcher's may have been reaped and handed to a stranger since, and the second pass
            // would list the stranger under the same number (security review, issue 15). Each
            // answer of owned then comes after the read it judges, as Launched.reap requires.
            Optional<Pass> second = pass(OWN_TASKS, self, held);
            return second.isPresent() && first.get().equals(second.get()) && quiet(second.get().children(), owned);
        }
    }

    /**
     * The children files the first pass of one check opened, read again by its second through
     * the same descriptors: a read at offset 0 ({@code pread}) makes the kernel build the list
     * anew, as an open does, without the open's walk of {@code /proc} and the close (about half
     * of the second pass's cost, issue 15). The second pass still lists the task directory
     * afresh, opens any task not seen by the first, and compares both whole. A descriptor of a
     * thread that ended since reads empty, as its path would read empty or not at all; a task
     * id taken again meanwhile by a new magus thread would need a lap of the pid space between
     * two passes, and such a thread could only hold children it forked itself, never an orphan
     * (the kernel hands those to a living thread of the subreaper, one that existed already).
     */
    static final class Held implements AutoCloseable {
        /**
         * How many descriptors all checks of this process may hold at once. One check holds one
         * per magus thread, and the threads grow with the live runs: runs ending together would
         * hold runs x threads descriptors (security review, issue 15: a burst of ending runs
         * could exhaust the server's descriptors and fail other runs' spawns and accepts). Past
         * the budget a list is opened again by the second pass, as before.
         */
        static final int BUDGET = 256;
        private static final java.util.concurrent.atomic.AtomicInteger HELD = new java.util.concurrent.atomic.AtomicInteger();
        private final java.util.Map<Long, FileChannel> open = new java.util.HashMap<>();

        /** Keeps {@code ch} under {@code id} when the budget allows; false when the caller must close it. */
        boolean keep(long id, FileChannel ch) {
            if (open.containsKey(id)) {
                return false;
            }
            if (HELD.incrementAndGet() > BUDGET) {
                HELD.decrementAndGet();
                return false;
            }
            open.put(id, ch);
            return true;
        }

        /** How many descriptors this check holds. */
        int kept() {
            return open.size();
        }

        /** How many descriptors the checks of this process hold now. */
        static int held() {
            return HELD.get();
        }

        @Override
        public void close() {
            for (FileChannel ch : open.values()) {
                HELD.decrementAndGet();
                closeQuietly(ch);
            }
            open.clear();
        }

        private static void closeQuietly(FileChannel ch) {
            try {
                ch.close();
            } catch (IOException e) {
                // a /proc descriptor: nothing was written
            }
        }
    }

    /** The decision, pure: no child that {@code owned} does not vouch for. */
    static boolean quiet(List<Long> children, LongPredicate owned) {
        for (long pid : children) {
            if (!owned.test(pid)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Every task's children under {@code tasks}, the task {@code leader} read last (a thread that
     * ends hands its children to the first living one, the leader); empty when any list cannot
     * be read whole in one read.
     */
    static Optional<Pass> pass(Path tasks, long leader) {
        try (Held held = new Held()) {
            return pass(tasks, leader, held);
        }
    }

    /** {@link #pass(Path, long)}, reading the lists {@code held} has open through their descriptors, and keeping those it opens. */
    static Optional<Pass> pass(Path tasks, long leader, Held held) {
        List<Long> ids = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(tasks)) {
            for (Path task : ds) {
                ids.add(Long.parseLong(task.getFileName().toString()));
            }
            ids.sort(null);
            if (ids.remove(Long.valueOf(leader))) {
                ids.add(leader);
            }
            // Each list opened beneath the directory's descriptor (openat "TID/children"), not by
            // its whole path: the kernel's walk of /proc/self/task was most of each open's cost,
            // two opens per task per pass (issue 15). Same files, same single read.
            SecureDirectoryStream<Path> at = ds instanceof SecureDirectoryStream<Path> secure ? secure : null;
            List<Long> out = new ArrayList<>();
            ByteBuffer buf = ByteBuffer.allocate(READ);
            for (long id : ids) {
                FileChannel known = held.open.get(id);
                Optional<List<Long>> some;
                if (known != null) {
                    some = readAtStart(known, buf).flatMap(QuietRun::parse);
                } else {
                    Path list = Path.of(Long.toString(id), "children");
                    some = (at != null ? readOnce(at, list, buf, id, held) : readOnce(tasks.resolve(list), buf))
                            .flatMap(QuietRun::parse);
                }
                if (some.isEmpty()) {
                    // A task that ended meanwhile, no children file (a kernel without
                    // CONFIG_PROC_CHILDREN), no /proc: the pass runs.
                    return Optional.empty();
                }
                out.addAll(some.get());
            }
            out.sort(null);
            ids.sort(null);
            return Optional.of(new Pass(List.copyOf(ids), List.copyOf(out)));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * {@link #readOnce(Path, ByteBuffer)} of {@code file} beneath {@code dir}'s descriptor; the
     * channel is kept in {@code held} under {@code id} when it can be read again at offset 0.
     */
    private static Optional<byte[]> readOnce(SecureDirectoryStream<Path> dir, Path file, ByteBuffer buf, long id, Held held) {
        SeekableByteChannel ch = null;
        boolean kept = false;
        try {
            ch = dir.newByteChannel(file, Set.of(StandardOpenOption.READ));
            Optional<byte[]> text = readOnce(ch, buf);
            if (ch instanceof FileChannel fc) {
                kept = held.keep(id, fc);
            }
            return text;
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        } finally {
            if (ch != null && !kept) {
                try {
                    ch.close();
                } catch (IOException e) {
                    // a /proc descriptor: nothing was written
                }
            }
        }
    }

    /** The file's text from one {@code pread} at offset 0: the kernel builds a seq file's text anew. */
    private static Optional<byte[]> readAtStart(FileChannel ch, ByteBuffer buf) {
        try {
            buf.clear();
            int n = ch.read(buf, 0);
            return text(n, buf);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * The file's text from one {@code read}: the kernel builds a children list anew at each read
     * and resumes it by position, so the JDK's usual one-byte-first read could lose a pid.
     */
    private static Optional<byte[]> readOnce(Path file, ByteBuffer buf) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            return readOnce(ch, buf);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static Optional<byte[]> readOnce(java.nio.channels.ReadableByteChannel ch, ByteBuffer buf) throws IOException {
        buf.clear();
        return text(ch.read(buf), buf);
    }

    /** What one read of {@code n} bytes into {@code buf} gave; empty when it filled the buffer (a doubt). */
    private static Optional<byte[]> text(int n, ByteBuffer buf) {
        if (n >= buf.capacity()) {
            return Optional.empty();
        }
        byte[] text = new byte[Math.max(n, 0)];
        buf.flip();
        buf.get(text);
        return Optional.of(text);
    }

    /** A {@code children} file: pids separated by spaces ("123 456 "); empty for anything else. */
    static Optional<List<Long>> parse(byte[] text) {
        List<Long> pids = new ArrayList<>();
        long v = 0;
        int digits = 0;
        for (byte b : text) {
            if (b >= '0' && b <= '9') {
                if (++digits > 10) {
                    return Optional.empty();
                }
                v = v * 10 + (b - '0');
            } else if (b == ' ' || b == '\n') {
                if (digits > 0) {
                    pids.add(v);
                }
                v = 0;
                digits = 0;
            } else {
                return Optional.empty();
            }
        }
        if (digits > 0) {
            pids.add(v);
        }
        return Optional.of(pids);
    }
}
