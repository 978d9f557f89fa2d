package dev.magus.orchestrator.orphans;

import dev.magus.landlock.launch.Launched;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.LongPredicate;

/**
 * The fast form of {@link QuietRun}'s check (why it suffices is there): the children lists of
 * magus's thread-group leader, read through two descriptors held for the life of the process,
 * and of the threads that called {@code posix_spawn} for the launcher and are still there.
 * "Quiet" needs two agreeing reads, every child vouched for after the last, and then a leader
 * neither exiting nor dead; "not quiet" needs one child nobody vouches for (never unsafe: the
 * pass over {@code /proc} runs). Anything else is no answer, and {@link QuietRun} reads every
 * thread's list.
 */
final class LeaderList {
    /** {@code PF_EXITING} from {@code <linux/sched.h>}: set by {@code do_exit}, never cleared. */
    static final long PF_EXITING = 0x4;

    /** Where the fast form reads; {@link #PROC} in magus, a fake in tests. */
    interface Reader {
        /** One read at offset 0 of the leader thread's {@code children}; empty on any error or doubt. */
        Optional<byte[]> children();

        /** One read at offset 0 of the leader thread's {@code stat}; empty on any error or doubt. */
        Optional<byte[]> stat();

        /** The leader's thread id (the process id). */
        long leader();

        /**
         * Every child listed by the threads that called {@code posix_spawn} for the launcher
         * ({@link Launched#spawners}) and are still there, each list in one read, sorted; a thread
         * gone reads as none (the kernel handed its children on) and is forgotten; empty on any
         * doubt, and when a spawn's thread is unknown.
         */
        Optional<List<Long>> spawners();
    }

    /**
     * The kernel's files, opened at the first check and held until the process ends: two
     * descriptors whatever the number of runs and threads. Reads are {@code pread}s at offset 0,
     * which the kernel's seq files serve under their own lock and rebuild from the start, so
     * checks ending at once on several threads share them safely. No {@code O_CLOEXEC} is
     * needed: the launcher closes every descriptor above 2 in its children
     * ({@code posix_spawn_file_actions_addclosefrom_np}), as it does for the JVM's own.
     */
    static final Reader PROC = new Proc(ProcessHandle.current().pid());

    private LeaderList() {
    }

    /**
     * The fast answer about the leader's children: present when decided from its list alone,
     * empty on any doubt.
     */
    static Optional<Boolean> quiet(Reader leader, LongPredicate owned) {
        // The spawners' lists first, the leader's last: a thread that ends hands its children to the leader.
        Optional<List<Long>> spawned = leader.spawners();
        Optional<List<Long>> first = leader.children().flatMap(QuietRun::parse);
        if (spawned.isEmpty() || first.isEmpty()) {
            return Optional.empty();
        }
        if (!QuietRun.quiet(spawned.get(), owned) || !QuietRun.quiet(first.get(), owned)) {
            return Optional.of(false);
        }
        // Two reads that agree: a child reaped while a list was read can
        // make the kernel skip the one after it (the list is resumed by position), and a child
        // handed from a spawner that ended to the leader meanwhile is read twice, or not at all.
        Optional<List<Long>> spawnedAgain = leader.spawners();
        Optional<List<Long>> second = leader.children().flatMap(QuietRun::parse);
        if (spawnedAgain.isEmpty() || second.isEmpty() || !spawnedAgain.get().equals(spawned.get())
                || !second.get().equals(first.get())) {
            return Optional.empty();
        }
        // After the last read: PF_EXITING is never cleared, so a leader not exiting now was not
        // exiting during either read, and every orphan handed to magus up to then went to it.
        if (!leader.stat().map(s -> steady(s, leader.leader())).orElse(false)) {
            return Optional.empty();
        }
        // The register asked after the last read, as Launched.reap requires.
        return Optional.of(QuietRun.quiet(spawnedAgain.get(), owned) && QuietRun.quiet(second.get(), owned));
    }

    /**
     * Every child of the threads that can have one a run left behind: the spawners' lists, then
     * the leader's (a thread that ends hands its children to the leader), each in one read. Why
     * those suffice while the leader is not exiting is in {@link QuietRun}; the leader's
     * {@code stat} is read after its list for that. The other threads' children are the JDK's
     * {@code Process} children, in magus's own process group, never a run's. Empty on any doubt:
     * the caller then reads every thread's list. One read of each list, not two that agree: the
     * stray search repeats its passes until one finds nothing, which covers a list the kernel cut
     * short while a child was reaped.
     */
    static Optional<List<Long>> children(Reader leader) {
        Optional<List<Long>> spawned = leader.spawners();
        if (spawned.isEmpty()) {
            return Optional.empty();
        }
        Optional<List<Long>> own = leader.children().flatMap(QuietRun::parse);
        if (own.isEmpty() || !leader.stat().map(s -> steady(s, leader.leader())).orElse(false)) {
            return Optional.empty();
        }
        List<Long> all = new ArrayList<>(spawned.get());
        all.addAll(own.get());
        return Optional.of(all);
    }

    /**
     * Whether a thread's {@code stat} text shows thread {@code tid} alive and not exiting: its
     * state is not Z, X or x, and its flags (field 9) lack {@code PF_EXITING}. False for
     * anything malformed. The state alone would not do: a thread in {@code do_exit} still reads
     * R or D until it is a zombie, with {@code PF_EXITING} set long before.
     */
    static boolean steady(byte[] stat, long tid) {
        String s = new String(stat, StandardCharsets.US_ASCII);
        int open = s.indexOf(" (");
        int close = s.lastIndexOf(')');
        if (open <= 0 || close < open || !s.substring(0, open).equals(Long.toString(tid))) {
            return false;
        }
        // After the name: state ppid pgrp session tty_nr tpgid flags ...
        String[] f = s.substring(close + 1).trim().split(" ");
        if (f.length < 7 || f[0].length() != 1) {
            return false;
        }
        char state = f[0].charAt(0);
        if (state == 'Z' || state == 'X' || state == 'x' || state < 'A' || state > 'z') {
            return false;
        }
        try {
            long flags = Long.parseUnsignedLong(f[6]);
            return (flags & PF_EXITING) == 0;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** The kernel's files of this process's leader thread, opened once, each read at offset 0. */
    private static final class Proc implements Reader {
        private final long leader;
        private volatile FileChannel children;
        private volatile FileChannel stat;

        Proc(long leader) {
            this.leader = leader;
        }

        @Override
        public long leader() {
            return leader;
        }

        @Override
        public Optional<byte[]> children() {
            return read(channels() ? children : null);
        }

        @Override
        public Optional<byte[]> stat() {
            return read(channels() ? stat : null);
        }

        @Override
        public Optional<List<Long>> spawners() {
            long[] spawners = Launched.spawners();
            if (spawners == null) {
                return Optional.empty();
            }
            List<Long> out = new ArrayList<>();
            ByteBuffer buf = null;
            for (int i = 0; i < spawners.length; i += 2) {
                long tid = spawners[i];
                if (tid == leader) {
                    continue; // read last, by children()
                }
                if (buf == null) {
                    buf = ByteBuffer.allocate(OneRead.SIZE);
                }
                Path list = Path.of("/proc/self/task", Long.toString(tid), "children");
                try (FileChannel ch = FileChannel.open(list, StandardOpenOption.READ)) {
                    Optional<List<Long>> some = OneRead.once(ch, buf).flatMap(QuietRun::parse);
                    if (some.isEmpty()) {
                        return Optional.empty();
                    }
                    out.addAll(some.get());
                } catch (NoSuchFileException e) {
                    // Gone (release_task, after exit_notify handed its children on): to the
                    // leader while it is steady, which the caller checks after its last read.
                    Launched.spawnerGone(tid, spawners[i + 1]);
                } catch (IOException | RuntimeException e) {
                    return Optional.empty();
                }
            }
            out.sort(null);
            return Optional.of(out);
        }

        /** Opens both files once; false (a doubt, tried again next check) when either cannot be. */
        private boolean channels() {
            if (open()) {
                return true;
            }
            synchronized (this) {
                if (open()) {
                    return true;
                }
                // A read on an interrupted thread closes a FileChannel: open both again.
                closeQuietly(children);
                closeQuietly(stat);
                stat = null;
                Path dir = Path.of("/proc/self/task", Long.toString(leader));
                FileChannel c = null;
                try {
                    c = FileChannel.open(dir.resolve("children"), StandardOpenOption.READ);
                    FileChannel s = FileChannel.open(dir.resolve("stat"), StandardOpenOption.READ);
                    children = c;
                    stat = s;
                    return true;
                } catch (IOException | RuntimeException e) {
                    if (c != null) {
                        try {
                            c.close();
                        } catch (IOException ignored) {
                            // a /proc descriptor: nothing was written
                        }
                    }
                    return false;
                }
            }
        }

        private boolean open() {
            FileChannel s = stat;
            return s != null && s.isOpen() && children.isOpen();
        }

        private static void closeQuietly(FileChannel ch) {
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // a /proc descriptor: nothing was written
                }
            }
        }

        private static Optional<byte[]> read(FileChannel ch) {
            if (ch == null) {
                return Optional.empty();
            }
            return OneRead.atStart(ch, ByteBuffer.allocate(OneRead.SIZE));
        }
    }
}
