package dev.magus.orchestrator.orphans;

import dev.magus.landlock.sys.Natives;
import dev.magus.landlock.sys.Syscalls;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * The descendants of a run that left its process group ({@code setsid}, {@code setpgid}, a
 * double fork): killing the group at the end of the run does not reach them, and they keep the
 * run's Landlock grant. One of them could wait for the control-file audit to pass and then
 * rewrite {@code magus.yaml} or plant a git hook for the next, unconfined tool, or swap a
 * directory for a link while magus removes the run's private temp dir.
 *
 * <p>So magus makes itself the <em>child subreaper</em> of everything it starts
 * ({@code prctl(PR_SET_CHILD_SUBREAPER)}): an orphaned descendant is re-parented to magus, not
 * to init, and can be found among magus's own children. At the end of a run, after its group
 * is gone and before the audits, {@link #collect} kills and reaps every such child whose
 * environment carries the run's {@code MAGUS_RUN_ID}, and repeats until none is left (the
 * children of a killed stray are re-parented to magus in turn). Being the subreaper has a duty
 * that comes with it: the members of the run's own group, killed with it, are re-parented to
 * magus too once their parents die, as zombies whose environment can no longer be read; they
 * are claimed by their process group and reaped, and the collection goes on until no process
 * of that group is left anywhere.
 *
 * <p>A stray is recognised by the environment it was started with
 * ({@code /proc/PID/environ}), never guessed: magus may be embedded in a program with children
 * of its own, and a server runs other clients' runs at the same time. What remains: a
 * descendant that re-executes itself with an environment without {@code MAGUS_RUN_ID}
 * ({@code env -i setsid …}) is not recognised, and outlives the run (README, "What it does not
 * stop"). On a host without the subreaper call (not Linux, or no libc) nothing is re-parented
 * and nothing is collected.
 */
public final class Strays {
    /** {@code PR_SET_CHILD_SUBREAPER} from {@code <linux/prctl.h>}. */
    static final int PR_SET_CHILD_SUBREAPER = 36;
    private static final int SIGKILL = 9;
    private static final int WNOHANG = 1;
    private static final Path PROC = Path.of("/proc");
    private static final String RUN_ID = "MAGUS_RUN_ID=";

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

    /**
     * Kills and reaps every child of this process started with {@code MAGUS_RUN_ID=runId} or in
     * the run's process {@code group} (already killed), until none is left and no process of the
     * group remains, or {@code limit} has passed.
     *
     * @return how many were killed
     */
    public static int collect(String runId, long group, Duration limit) {
        if (!adopted) {
            return 0;
        }
        Syscalls sys = Natives.syscalls();
        long self = ProcessHandle.current().pid();
        byte[] marker = (RUN_ID + runId).getBytes(StandardCharsets.UTF_8);
        long deadline = System.nanoTime() + limit.toNanos();
        int killed = 0;
        List<Long> found = strays(self, marker, group);
        while ((!found.isEmpty() || groupLives(sys, group)) && System.nanoTime() < deadline) {
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
            found = strays(self, marker, group);
        }
        return killed;
    }

    /**
     * This process's children that are the run's: in its process group, or started with an
     * environment that holds {@code marker} as one entry.
     */
    static List<Long> strays(long self, byte[] marker, long group) {
        List<Long> out = new ArrayList<>();
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(PROC, "[0-9]*")) {
            for (Path p : procs) {
                long[] ids = ids(p);
                if (ids[0] == self && (ids[1] == group || carries(p.resolve("environ"), marker))) {
                    out.add(Long.parseLong(p.getFileName().toString()));
                }
            }
        } catch (IOException | RuntimeException e) {
            // no /proc: nothing can be found, and nothing is killed on a guess
        }
        return out;
    }

    /**
     * Whether any process, whoever its parent, is still in {@code group}: signal 0 to the group
     * (a zombie still counts), one system call instead of another pass over {@code /proc}.
     */
    private static boolean groupLives(Syscalls sys, long group) {
        return sys.kill(-(int) group, 0) == 0;
    }

    /** The parent and the process group of the process at {@code proc}, or -1s when it cannot say. */
    private static long[] ids(Path proc) {
        try {
            String stat = Files.readString(proc.resolve("stat"), StandardCharsets.ISO_8859_1);
            int close = stat.lastIndexOf(')');
            // After ") ": state, ppid, pgrp.
            String[] f = stat.substring(close + 2).split(" ", 4);
            return new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])};
        } catch (IOException | RuntimeException e) {
            return new long[] {-1, -1};
        }
    }

    private static boolean carries(Path environ, byte[] marker) {
        byte[] env;
        try {
            env = Files.readAllBytes(environ);
        } catch (IOException e) {
            return false;
        }
        int start = 0;
        for (int i = 0; i <= env.length; i++) {
            if (i == env.length || env[i] == 0) {
                if (i - start == marker.length && java.util.Arrays.equals(env, start, i, marker, 0, marker.length)) {
                    return true;
                }
                start = i + 1;
            }
        }
        return false;
    }
}
