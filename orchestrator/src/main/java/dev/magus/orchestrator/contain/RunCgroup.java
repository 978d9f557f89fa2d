package dev.magus.orchestrator.contain;

import dev.magus.landlock.launch.Placement;
import dev.magus.landlock.sys.Natives;
import dev.magus.landlock.sys.Syscalls;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * One run's cgroup v2, threaded, under magus's parent cgroup: its confined child is born in it
 * ({@link Placement}), and so is everything that child starts, whatever group or session it
 * takes. {@link #end} freezes it (a frozen process forks no more, and a child forked meanwhile
 * is born frozen), kills each process in it, waits until the kernel says it is empty, and
 * removes it. (A threaded cgroup has no {@code cgroup.kill}; the freeze is what makes the kill
 * atomic.)
 *
 * @param dir  where it is in the file system
 * @param path its path from the hierarchy's root, as {@code /proc/PID/cgroup} says it
 */
public record RunCgroup(Path dir, String path) {
    private static final int SIGKILL = 9;

    /** How one run's cgroup ended. */
    public sealed interface End {
        /** Its processes are gone and the cgroup is removed (or, {@code removed} false, left empty). */
        record Gone(int killed, boolean removed) implements End {
        }

        /** Still populated when the limit passed: these thread ids (each names its process to kill(2)) live on. */
        record Survived(List<Long> threads) implements End {
            public Survived {
                threads = List.copyOf(threads);
            }
        }

        /** Not used: {@code why} (a thread of magus in it, an unreadable file); the subreaper's path ends the run. */
        record NotUsed(String why) implements End {
        }
    }

    /** Makes the run's cgroup {@code name} under {@code parent} (at {@code parentPath} in the hierarchy), threaded. */
    static RunCgroup create(Path parent, String parentPath, String name) throws IOException {
        Path dir = parent.resolve(name);
        Files.createDirectory(dir);
        try {
            Files.writeString(dir.resolve("cgroup.type"), "threaded");
        } catch (IOException | RuntimeException e) {
            remove(dir);
            throw e;
        }
        return new RunCgroup(dir, (parentPath.equals("/") ? "" : parentPath) + "/" + name);
    }

    /** Opens the placement a spawn is handed: the launch thread moves there before {@code posix_spawn}. */
    Placement placement() throws IOException {
        return Placement.open(dir);
    }

    /** Whether process {@code pid} is in this cgroup now, read from its {@code /proc/PID/cgroup}. */
    boolean holds(long pid) {
        try {
            return CgroupText.unifiedPath(Files.readString(Path.of("/proc", Long.toString(pid), "cgroup")))
                    .filter(path::equals).isPresent();
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Ends every process in the cgroup within {@code limit}, then removes it. Never freezes a
     * thread of magus: should one still be in it (a launch thread that has not ended yet), the
     * end waits for it, and gives up the cgroup ({@link End.NotUsed}) rather than freeze it.
     */
    End end(Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        Syscalls sys = Natives.syscalls();
        try {
            while (ownThreadIn(threads())) {
                if (System.nanoTime() - deadline > 0) {
                    return new End.NotUsed("a thread of magus is still in " + dir);
                }
                LockSupport.parkNanos(100_000);
            }
            if (!events().populated()) {
                return new End.Gone(0, remove(dir));
            }
            Files.writeString(dir.resolve("cgroup.freeze"), "1");
            int killed = 0;
            List<Long> left = threads();
            while (!left.isEmpty() || events().populated()) {
                if (System.nanoTime() - deadline > 0) {
                    // Populated with no thread listed: only tasks finishing their exit, no writer.
                    return left.isEmpty() ? new End.Gone(killed, remove(dir)) : new End.Survived(left);
                }
                for (long tid : left) {
                    // A thread id names its whole process to kill(2); a frozen one dies at SIGKILL all the same.
                    if (!ours(tid) && sys.kill((int) tid, SIGKILL) == 0) {
                        killed++;
                    }
                }
                LockSupport.parkNanos(200_000);
                left = threads();
            }
            return new End.Gone(killed, remove(dir));
        } catch (IOException | RuntimeException e) {
            return new End.NotUsed("cannot end " + dir + ": " + e);
        }
    }

    /** Removes an empty cgroup, or leaves it; whether it is gone. */
    static boolean remove(Path dir) {
        try {
            Files.deleteIfExists(dir);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private List<Long> threads() throws IOException {
        return CgroupText.ids(Files.readString(dir.resolve("cgroup.threads")));
    }

    private CgroupText.Events events() throws IOException {
        return CgroupText.events(Files.readString(dir.resolve("cgroup.events")));
    }

    private static boolean ownThreadIn(List<Long> threads) {
        return threads.stream().anyMatch(RunCgroup::ours);
    }

    /** Whether thread {@code tid} is one of this process's. */
    private static boolean ours(long tid) {
        return Files.exists(Path.of("/proc/self/task", Long.toString(tid)));
    }
}
