package dev.magus.orchestrator.orphans;

import dev.magus.landlock.sys.Syscalls;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Ends a run's strays so that none can outrun the ending by forking: every stray found, and
 * every descendant of it, is stopped ({@code SIGSTOP}, which no process can catch or ignore)
 * before any is killed, and the search repeats until a whole pass finds no process of the run
 * that is not stopped; then all are killed at once. A stopped process neither forks nor exits,
 * so the tree cannot change under the search; a process that died before it was stopped
 * handed its children to magus, the subreaper, where the next pass finds them; one that a
 * sibling not yet stopped woke ({@code SIGCONT}) is stopped again.
 *
 * <p>Children are read from {@code /proc/PID/task/TID/children}, filled at the moment of the
 * read, not from a listing of {@code /proc}: that snapshot misses a process forked after it by
 * one that then exited, so a fork-hopping chain slips past the kill.
 */
final class Freeze {
    private static final int SIGKILL = 9;
    private static final int SIGSTOP = 19;
    private static final int WNOHANG = 1;
    private static final Path PROC = Path.of("/proc");

    private Freeze() {
    }

    /**
     * Stops every process {@code strays} names and all their descendants until a pass finds
     * nothing new, no child of magus ended since the list was read (the function sets its
     * argument's first element then) and everything stopped, or {@code deadline} (nanoTime)
     * passes; then kills them all and reaps those that are magus's children. Returns how many
     * were killed.
     */
    static int thenKill(Syscalls sys, Function<boolean[], List<Long>> strays, long deadline) {
        Set<Long> frozen = new LinkedHashSet<>();
        boolean[] unsettled = new boolean[1];
        int lookAgain = Strays.LOOK_AGAIN;
        while (System.nanoTime() < deadline) {
            Deque<Long> todo = new ArrayDeque<>(strays.apply(unsettled));
            // A child found ended hands its children to magus after the list was read: look again,
            // a few passes in a row at most (other runs' zombies end beside this one's).
            boolean changed = unsettled[0] && lookAgain-- > 0;
            while (!todo.isEmpty()) {
                long pid = todo.pop();
                if (frozen.add(pid)) {
                    changed = true;
                    lookAgain = Strays.LOOK_AGAIN;
                    if (sys.kill((int) pid, SIGSTOP) != 0) {
                        // Gone already: its children went to magus, the next pass sees them.
                        continue;
                    }
                }
                Optional<List<Long>> children = childrenOf(pid);
                if (children.isEmpty()) {
                    // Gone, or its children unreadable: look again.
                    changed |= alive(pid);
                    continue;
                }
                todo.addAll(children.get());
            }
            for (long pid : frozen) {
                char state = state(pid);
                if (state != 'T' && state != 't' && state != 'Z' && state != 'X' && state != '-') {
                    // Woken by a sibling not stopped then, or not stopped yet: stop it again.
                    sys.kill((int) pid, SIGSTOP);
                    changed = true;
                }
            }
            if (!changed) {
                break;
            }
        }
        for (long pid : frozen) {
            sys.kill((int) pid, SIGKILL);
        }
        for (long pid : frozen) {
            // Ours to reap when re-parented to magus; a child of another frozen stray is re-parented
            // to magus when that one dies and is reaped by the collection after this.
            sys.waitpid((int) pid, null, WNOHANG);
        }
        return frozen.size();
    }

    /**
     * The children of every thread of {@code pid}, each thread's list read at once; empty when
     * the process is gone or a list cannot be read (a kernel without the {@code children} file).
     */
    static Optional<List<Long>> childrenOf(long pid) {
        Path tasks = PROC.resolve(Long.toString(pid)).resolve("task");
        List<Long> out = new ArrayList<>();
        try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks)) {
            for (Path t : threads) {
                byte[] list;
                try {
                    list = Files.readAllBytes(t.resolve("children"));
                } catch (NoSuchFileException threadGone) {
                    // A thread that ended handed its children to another, read after it or next pass.
                    continue;
                }
                for (String s : new String(list, StandardCharsets.US_ASCII).trim().split(" ")) {
                    if (!s.isEmpty()) {
                        out.add(Long.parseLong(s));
                    }
                }
            }
        } catch (IOException | RuntimeException unreadable) {
            return Optional.empty();
        }
        return Optional.of(out);
    }

    /** The state letter of {@code pid} ({@code /proc/PID/stat} field 3), {@code '-'} when it is gone. */
    static char state(long pid) {
        try {
            String stat = Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"), StandardCharsets.US_ASCII);
            int close = stat.lastIndexOf(')');
            return close > 0 && close + 2 < stat.length() ? stat.charAt(close + 2) : '-';
        } catch (IOException | RuntimeException gone) {
            return '-';
        }
    }

    private static boolean alive(long pid) {
        char s = state(pid);
        return s != '-' && s != 'Z' && s != 'X';
    }
}
