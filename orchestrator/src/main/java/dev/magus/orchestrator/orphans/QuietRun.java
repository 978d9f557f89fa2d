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
 * Whether the end of a run may skip the pass over {@code /proc} for strays: when magus, the
 * child subreaper of everything it starts, has no child but the ones its launcher still owns. A
 * run that left anything behind (an orphan, a zombie of its group) leaves magus one it does not.
 *
 * <p>The kernel ({@code find_new_reaper}) gives an orphan to the subreaper's first thread
 * without {@code PF_EXITING}: the thread-group leader while it is not exiting (its {@code stat}
 * flags, read after the list). Other threads hold only what magus spawned, plus a run leader's
 * {@code clone(CLONE_PARENT)} child while its spawning thread lives ({@code Launched.spawners},
 * {@link LeaderList}). On any doubt ({@link OneRead}) every task's {@code children} is read, the
 * leader's last, and two passes must agree; anything unreadable means "not quiet". The lists
 * are by {@code real_parent}, so a tracer moves nothing out of them; pid counts are not used,
 * since a failing {@code clone3} spends a pid without counting a fork.
 */
final class QuietRun {
    private static final Path OWN_TASKS = Path.of("/proc/self/task");

    private QuietRun() {
    }

    /**
     * One pass: the tasks read (leader last) and every child they listed, both sorted. Its
     * equals and hashCode are written out: a record's own are linked at their first call
     * ({@code ObjectMethods} bootstrap), a cost a one-shot run would pay.
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
        return quiet(owned, LeaderList.PROC);
    }

    /**
     * {@link #quiet(LongPredicate)} with the leader's list read through {@code leader}: its
     * answer when it has one ({@link LeaderList#quiet}), else two passes over every task.
     */
    static boolean quiet(LongPredicate owned, LeaderList.Reader leader) {
        Optional<Boolean> fast = LeaderList.quiet(leader, owned);
        if (fast.isPresent()) {
            return fast.get();
        }
        long self = ProcessHandle.current().pid();
        try (HeldLists held = new HeldLists()) {
            Optional<Pass> first = pass(OWN_TASKS, self, held);
            if (first.isEmpty() || !quiet(first.get().children(), owned)) {
                return false;
            }
            // The register is asked again after the last read: a pid the first pass saw as the
            // launcher's may have been reaped and handed to a stranger since, and the second pass
            // would list the stranger under the same number. Each
            // answer of owned then comes after the read it judges, as Launched.reap requires.
            Optional<Pass> second = pass(OWN_TASKS, self, held);
            return second.isPresent() && first.get().equals(second.get()) && quiet(second.get().children(), owned);
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
        try (HeldLists held = new HeldLists()) {
            return pass(tasks, leader, held);
        }
    }

    /** {@link #pass(Path, long)}, reading the lists {@code held} has open through their descriptors, and keeping those it opens. */
    static Optional<Pass> pass(Path tasks, long leader, HeldLists held) {
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
            // its whole path, which the kernel would walk again for every open.
            SecureDirectoryStream<Path> at = ds instanceof SecureDirectoryStream<Path> secure ? secure : null;
            List<Long> out = new ArrayList<>();
            ByteBuffer buf = ByteBuffer.allocate(OneRead.SIZE);
            for (long id : ids) {
                FileChannel known = held.get(id);
                Optional<List<Long>> some;
                if (known != null) {
                    some = OneRead.atStart(known, buf).flatMap(QuietRun::parse);
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
    private static Optional<byte[]> readOnce(SecureDirectoryStream<Path> dir, Path file, ByteBuffer buf, long id, HeldLists held) {
        SeekableByteChannel ch = null;
        boolean kept = false;
        try {
            ch = dir.newByteChannel(file, Set.of(StandardOpenOption.READ));
            Optional<byte[]> text = OneRead.once(ch, buf);
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

    /**
     * The file's text from one {@code read}: the kernel builds a children list anew at each read
     * and resumes it by position, so the JDK's usual one-byte-first read could lose a pid.
     */
    private static Optional<byte[]> readOnce(Path file, ByteBuffer buf) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            return OneRead.once(ch, buf);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
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
