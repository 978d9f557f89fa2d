package dev.magus.orchestrator.orphans;

import dev.magus.landlock.launch.Launched;
import dev.magus.landlock.sys.Natives;
import dev.magus.landlock.sys.Syscalls;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;

/**
 * The descendants of a run that left its process group ({@code setsid}, a double fork): the
 * group kill misses them and they keep the run's grant, so one could rewrite {@code magus.yaml}
 * after the audit or swap a dir for a link during the temp dir's removal. magus is the
 * <em>child subreaper</em> of everything it starts, so orphans come to it; {@link #collect}
 * kills and reaps the run's until none is left, and reaps the run's group's zombies.
 *
 * <p>Attribution: the run's group, or its {@code MAGUS_RUN_ID} (the child writes its own
 * environment, so an id only claims a stray for the run collecting it). One that shed both is
 * attributed by its start time ({@code /proc/PID/stat} field 22): killed when no running run
 * started before it, else left to the last such run's end. magus's own children (the
 * launcher's, {@link Launched}, and the JDK's, in magus's group) are never killed nor reaped, nor
 * is a descendant that joins magus's group. With no unowned child ({@link QuietRun}), no pass.
 */
public final class Strays {
    /** {@code PR_SET_CHILD_SUBREAPER} from {@code <linux/prctl.h>}. */
    static final int PR_SET_CHILD_SUBREAPER = 36;
    private static final int SIGKILL = 9;
    private static final int WNOHANG = 1;
    /** How many passes in a row may look again only because a listed child had ended. */
    static final int LOOK_AGAIN = 8;
    private static final Path PROC = Path.of("/proc");

    private static boolean adopted;

    private Strays() {
    }

    /**
     * Makes this process the subreaper of its descendants, once; whether it holds. A failure is
     * not fatal (the run is confined all the same), only the strays are then not collected.
     */
    public static synchronized boolean adopt() {
        if (!adopted) {
            try {
                Syscalls sys = Natives.syscalls();
                adopted = sys.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
            } catch (RuntimeException | LinkageError e) {
                adopted = false;
            }
        }
        return adopted;
    }

    private static synchronized boolean adoptedHolds() {
        return adopted;
    }

    /** A run whose child is running: its id, its group, and when its child started (clock ticks since boot). */
    private record Active(String runId, long group, long startTicks) {
    }

    /**
     * Every run of this process whose child is running, whoever owns it ({@code RunServices}):
     * the subreaper is the process, which adopts the orphans of all of them, so a stray can be
     * told to be one run's only against all the others.
     */
    private static final java.util.Map<String, Active> ACTIVE = new java.util.concurrent.ConcurrentHashMap<>();
    /** When the first run of this process started, whoever owned it: nothing older than that is any run's. */
    private static volatile long firstStart = Long.MAX_VALUE;

    /**
     * Notes that {@code runId}'s child {@code pid} (the leader of its group) runs now: every
     * descendant of the run starts at or after it. Call right after the spawn.
     */
    public static void begin(String runId, long pid) {
        long start = ProcessIdentity.startTicks(pid).orElse(0L);
        synchronized (Strays.class) {
            firstStart = Math.min(firstStart, start);
        }
        ACTIVE.put(runId, new Active(runId, pid, start));
    }

    /** Forgets the run begun with {@link #begin} (done by {@link #collect} too; again is harmless). */
    public static void end(String runId) {
        ACTIVE.remove(runId);
    }

    /**
     * Kills and reaps every child of this process that is the run's, until none is left and no
     * process of the run's {@code group} remains, or {@code limit} has passed; reaps every
     * other zombie adopted as subreaper on the way; then forgets the run.
     *
     * <p>A child is the run's when it is in the run's group, carries {@code MAGUS_RUN_ID=runId},
     * or was adopted and can be no other running run's (started after this process's first run
     * and after every other running run's child, in no other run's group, carrying no other id).
     * What is alive at {@code limit}, or left for another run while it may be this one's, is in
     * {@link Collected#survivors}: it can write after the audits, so the run fails, and what is
     * the run's beyond doubt is pursued in the background ({@link Pursuit}).
     *
     * @return how many were killed, and what survived
     */
    public static Collected collect(String runId, long group, Duration limit) {
        if (!adopted) {
            ACTIVE.remove(runId);
            return new Collected(0, List.of());
        }
        try {
            Syscalls sys = Natives.syscalls();
            long deadline = System.nanoTime() + limit.toNanos();
            int killed = 0;
            Active self = ACTIVE.get(runId);
            if (self != null && self.group() == group && !groupLives(sys, group) && adoptedHolds()
                    && QuietRun.quiet(Launched::owns)) {
                // magus has no child its launcher does not own: nothing of this run was left.
                return new Collected(0, List.of());
            }
            long since = self == null ? Long.MAX_VALUE : self.startTicks();
            List<Long> maybe = new ArrayList<>();
            boolean[] unsettled = new boolean[1];
            killed += Freeze.thenKill(sys, settled -> strays(sys, runId, group, since, new ArrayList<>(), settled), deadline);
            List<Long> found = strays(sys, runId, group, since, maybe, unsettled);
            // A pass that found a child ended looks again, a few times in a row at most: with other
            // runs ending beside this one, their zombies would otherwise keep it looking to the limit.
            int lookAgain = LOOK_AGAIN;
            while ((!found.isEmpty() || (unsettled[0] && lookAgain-- > 0) || groupLives(sys, group))
                    && System.nanoTime() < deadline) {
                if (!found.isEmpty()) {
                    lookAgain = LOOK_AGAIN;
                }
                for (long pid : found) {
                    sys.kill((int) pid, SIGKILL);
                    killed++;
                }
                for (long pid : found) {
                    // Re-parented to us, so ours to reap; SIGKILLed, so it ends at once.
                    while (sys.waitpid((int) pid, null, WNOHANG) == 0 && System.nanoTime() < deadline) {
                        LockSupport.parkNanos(200_000);
                    }
                }
                if (found.isEmpty()) {
                    // Members of the group whose parents are still dying: they are ours in a moment.
                    LockSupport.parkNanos(1_000_000);
                }
                maybe.clear();
                found = strays(sys, runId, group, since, maybe, unsettled);
            }
            List<Long> survivors = new ArrayList<>(found);
            survivors.addAll(maybe);
            boolean groupLives = groupLives(sys, group);
            if (survivors.isEmpty() && groupLives) {
                // Killed with its group, yet not gone in time (uninterruptible sleep, say).
                survivors.add(-group);
            }
            if (!found.isEmpty() || groupLives) {
                // The run fails for them; they are still killed, in the background, when they can be.
                Pursuit.start(sys, runId, group, Pursuit.LIMIT);
            }
            return new Collected(killed, survivors);
        } finally {
            ACTIVE.remove(runId);
        }
    }

    /**
     * The live children of this process that are the run's (see {@link #collect}); each zombie
     * child that magus did not start itself is reaped on the way.
     */
    static List<Long> strays(Syscalls sys, String runId, long group) {
        return strays(sys, runId, group, Long.MAX_VALUE, new ArrayList<>());
    }

    /**
     * As {@link #strays(Syscalls, String, long)}, and each adopted child left for another
     * running run that may be this one's all the same (started at or after {@code since},
     * this run's start) added to {@code maybe}.
     */
    static List<Long> strays(Syscalls sys, String runId, long group, long since, List<Long> maybe) {
        return strays(sys, runId, group, since, maybe, new boolean[1]);
    }

    /**
     * As {@link #strays(Syscalls, String, long, long, List)}; {@code unsettled[0]} says whether
     * a child listed was found ended (a zombie reaped here, or gone): its own children were
     * handed to magus after the list was read, so the caller must look again before it may
     * conclude that nothing is left.
     */
    static List<Long> strays(Syscalls sys, String runId, long group, long since, List<Long> maybe, boolean[] unsettled) {
        unsettled[0] = false;
        List<Long> out = new ArrayList<>();
        long self = ProcessHandle.current().pid();
        byte[] buf = new byte[1024];
        long ownGroup = ProcStat.of(Long.toString(self), buf).map(ProcStat::pgrp).orElse(-1L);
        List<Active> others = ACTIVE.values().stream().filter(a -> !a.runId().equals(runId)).toList();
        try {
            for (long child : candidates(self)) {
                String name = Long.toString(child);
                Path p = PROC.resolve(name);
                // The cheap test first: its parent, from bytes.
                Optional<ProcStat> st = ProcStat.of(name, buf);
                if (st.isEmpty()) {
                    // Listed, then gone: whatever it had forked is magus's now.
                    unsettled[0] = true;
                    continue;
                }
                if (st.get().ppid() != self || st.get().pgrp() == ownGroup || ownGroup < 0) {
                    continue;
                }
                long pid = Long.parseLong(name);
                if (st.get().state() == 'Z') {
                    // Adopted and ended: nobody else will ever wait for it. Reaped only while the
                    // launcher cannot own the pid, and only if it is still the zombie read above
                    // (same start time): that read may predate the reap of a launcher child whose
                    // pid another has taken since.
                    long started = st.get().startTicks();
                    unsettled[0] |= Launched.whileStranger(pid, () -> ProcStat.of(name, buf)
                            .filter(now -> now.state() == 'Z' && now.startTicks() == started && now.ppid() == self)
                            .map(now -> sys.waitpid((int) pid, null, WNOHANG) == pid)
                            .orElse(false));
                    continue;
                }
                if (!Launched.mayTouch(pid)) {
                    continue;
                }
                Owner owner = st.get().pgrp() == group ? Owner.THIS : owner(st.get(), p, runId, others);
                if (owner == Owner.THIS) {
                    out.add(pid);
                } else if (owner == Owner.AMBIGUOUS && st.get().startTicks() >= since) {
                    maybe.add(pid);
                }
            }
        } catch (RuntimeException e) {
            // no /proc: nothing can be found, and nothing is killed on a guess
        }
        return out;
    }

    /**
     * The processes that may be this process's children a run left: the {@code children} lists of
     * the leader thread and the launcher's spawning threads ({@link LeaderList#children}), each
     * read at the moment of the read ({@link Freeze}), so that the search costs the same however
     * many threads magus has; on any doubt there, every thread's list; where those cannot be
     * read, every process in a listing of {@code /proc} (the caller checks each one's parent).
     */
    private static List<Long> candidates(long self) {
        Optional<List<Long>> fast = LeaderList.children(LeaderList.PROC);
        if (fast.isPresent()) {
            return fast.get();
        }
        Optional<List<Long>> children = Freeze.childrenOf(self);
        if (children.isPresent()) {
            return children.get();
        }
        List<Long> all = new ArrayList<>();
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(PROC)) {
            for (Path p : procs) {
                String name = p.getFileName().toString();
                if (!name.isEmpty() && name.chars().allMatch(c -> c >= '0' && c <= '9')) {
                    all.add(Long.parseLong(name));
                }
            }
        } catch (IOException | RuntimeException e) {
            // no /proc: nothing is found, and nothing is killed on a guess
        }
        return all;
    }

    /** Whose an adopted child is: this run's, another running run's, either's, or none's. */
    private enum Owner { THIS, OTHER, AMBIGUOUS }

    /** Whether the adopted child at {@code proc} is this run's rather than one of {@code others}' (still running). */
    private static Owner owner(ProcStat st, Path proc, String runId, List<Active> others) {
        Optional<String> id = ProcStat.runIdOf(proc.resolve("environ"));
        if (id.isPresent() && id.get().equals(runId)) {
            return Owner.THIS;
        }
        boolean ambiguous = false;
        for (Active a : others) {
            if (st.pgrp() == a.group()) {
                return Owner.OTHER;
            }
            // Its environment is the child's to write (env MAGUS_RUN_ID=…): naming another
            // running run is no proof of being that run's, only its group is. It may be either's.
            ambiguous |= a.startTicks() <= st.startTicks() || id.filter(a.runId()::equals).isPresent();
        }
        if (ambiguous) {
            return Owner.AMBIGUOUS;
        }
        return st.startTicks() >= firstStart ? Owner.THIS : Owner.OTHER;
    }

    /**
     * Whether any process, whoever its parent, is still in {@code group}: signal 0 to the group
     * (a zombie still counts), one system call instead of another pass over {@code /proc}.
     */
    private static boolean groupLives(Syscalls sys, long group) {
        return sys.kill(-(int) group, 0) == 0;
    }
}
