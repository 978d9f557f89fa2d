package dev.magus.orchestrator.orphans;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
 * kernel gives an orphan to one living thread of the subreaper, and moves it to another when
 * that thread ends, so a task that vanished while the list was read (a child may have moved to
 * a task read before) makes the answer "not quiet", as does anything unreadable or a kernel
 * without the {@code children} file.
 *
 * <p>An earlier form compared the kernel's last pid ({@code /proc/loadavg}) with the child's,
 * guarding against a lap of the pid space with {@code /proc/stat}'s fork count; a failing
 * {@code clone3} spends a pid without counting a fork, so a confined child could lap the space
 * unseen and hide a stray (security review, issue 15). This form counts nothing.
 */
final class QuietRun {
    private static final Path OWN_TASKS = Path.of("/proc/self/task");

    private QuietRun() {
    }

    /** Whether every child of this process is one {@code owned} says the launcher owns; false on any doubt. */
    static boolean quiet(LongPredicate owned) {
        return children(OWN_TASKS).map(c -> quiet(c, owned)).orElse(false);
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

    /** Every task's children under {@code tasks}; empty when any task's list cannot be read whole. */
    static Optional<List<Long>> children(Path tasks) {
        List<Long> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(tasks)) {
            for (Path task : ds) {
                Optional<List<Long>> some = parse(Files.readAllBytes(task.resolve("children")));
                if (some.isEmpty()) {
                    return Optional.empty();
                }
                out.addAll(some.get());
            }
        } catch (IOException | RuntimeException e) {
            // A task that ended meanwhile (its children may have moved to one already read), no
            // children file (a kernel without CONFIG_PROC_CHILDREN), no /proc: the pass runs.
            return Optional.empty();
        }
        return Optional.of(out);
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
