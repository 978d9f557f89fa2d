package dev.magus.orchestrator.contain;

import dev.magus.landlock.launch.Confinement;
import dev.magus.landlock.launch.Placement;
import dev.magus.landlock.launch.Spawn;
import dev.magus.landlock.launch.SpawnRequest;
import dev.magus.landlock.launch.Spawner;
import dev.magus.landlock.supervise.Supervisor;
import dev.magus.orchestrator.orphans.Collected;
import dev.magus.orchestrator.orphans.ProcessIdentity;
import dev.magus.orchestrator.orphans.Watchdog;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The runs of this process that have a cgroup of their own: {@link #spawn} starts a confined
 * child in a new one, {@link #end} ends it. Where runs get none ({@link Containment.ByFreeze},
 * an unconfined child, any error), both do nothing beyond the plain spawn, and the run ends by
 * the subreaper's freeze-then-kill: an error never stops a run nor widens it.
 */
public final class RunCgroups {
    /** Run cgroups are named {@code run-NAMESPACE-PID-START-RUNID}: the magus that made them, then the run. */
    static final String PREFIX = "run-";
    /** The run's cgroup, by run id, from its spawn to its end. */
    private static final Map<String, RunCgroup> ACTIVE = new ConcurrentHashMap<>();
    /** Whether this process has swept the run cgroups crashed magus processes left: once is enough. */
    private static final AtomicBoolean SWEPT = new AtomicBoolean();

    private RunCgroups() {
    }

    /**
     * This process's containment, decided at its first use; {@link Containment.ByFreeze} while
     * {@code -Dmagus.contain=freeze} is set (read at every run, so a test can set and clear it).
     */
    public static Containment containment() {
        if ("freeze".equals(System.getProperty(Containment.FORCE))) {
            return new Containment.ByFreeze("-D" + Containment.FORCE + "=freeze");
        }
        return Decided.VALUE;
    }

    /** The decision, made when first asked: a process that never spawns never reads a cgroup file. */
    private static final class Decided {
        static final Containment VALUE = Containment.detect();
    }

    /**
     * Spawns {@code request} as {@code spawner} would, a confined child born in a cgroup of
     * run {@code runId}'s own when this process's runs get one; whether it was is read from
     * the child's {@code /proc/PID/cgroup}.
     *
     * @param supervisor null: none
     * @param watchdog   the run's owner's, which ends the cgroup should magus die first
     */
    public static Spawn spawn(String runId, Spawner spawner, SpawnRequest request, Confinement confinement,
                              Supervisor supervisor, Watchdog watchdog) {
        Optional<RunCgroup> made = confinement instanceof Confinement.Kernel ? create(runId) : Optional.empty();
        if (made.isEmpty()) {
            return spawner.spawn(request, confinement, supervisor, null);
        }
        RunCgroup cgroup = made.get();
        Spawn spawn;
        try (Placement placement = cgroup.placement()) {
            spawn = spawner.spawn(request, confinement, supervisor, placement);
        } catch (IOException e) {
            RunCgroup.remove(cgroup.dir());
            return spawner.spawn(request, confinement, supervisor, null);
        } catch (RuntimeException | Error e) {
            RunCgroup.remove(cgroup.dir());
            throw e;
        }
        boolean placed = spawn instanceof Spawn.Started s && cgroup.holds(s.child().pid());
        // Not placed (or nothing started): the cgroup is empty and goes; should it hold something
        // after all, it stays the run's, ended with it.
        if (placed || !RunCgroup.remove(cgroup.dir())) {
            ACTIVE.put(runId, cgroup);
            // Should magus die before the run's end, the watchdog ends the cgroup.
            watchdog.guardCgroup(cgroup.dir());
        }
        return spawn;
    }

    /** Whether run {@code runId}'s child was born in a cgroup of its own (between its spawn and its {@link #end}). */
    public static boolean contained(String runId) {
        return ACTIVE.containsKey(runId);
    }

    /**
     * Ends run {@code runId}'s cgroup, if it has one: every process in it killed and the cgroup
     * removed, within {@code limit}. What outlived it is a survivor that fails the run; a cgroup
     * that could not be used leaves the run to the subreaper's path, which runs after this anyway.
     */
    public static Collected end(String runId, Duration limit, Watchdog watchdog) {
        RunCgroup cgroup = ACTIVE.remove(runId);
        if (cgroup == null) {
            return new Collected(0, List.of());
        }
        RunCgroup.End end = cgroup.end(limit);
        if (!(end instanceof RunCgroup.End.NotUsed)) {
            watchdog.releaseCgroup(cgroup.dir());
        }
        if (end instanceof RunCgroup.End.Gone g) {
            return new Collected(g.killed(), List.of());
        }
        // Not used: the subreaper's path, which runs after this, ends the run.
        return end instanceof RunCgroup.End.Survived s ? new Collected(0, s.threads()) : new Collected(0, List.of());
    }

    private static Optional<RunCgroup> create(String runId) {
        if (!(containment() instanceof Containment.ByCgroup c)) {
            return Optional.empty();
        }
        Optional<ProcessIdentity> self = ProcessIdentity.self();
        if (self.isEmpty()) {
            return Optional.empty();
        }
        if (SWEPT.compareAndSet(false, true)) {
            sweep(c.parent());
        }
        try {
            return Optional.of(RunCgroup.create(c.parent(), c.parentPath(), PREFIX + self.get().token() + "-" + runId));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * Ends and removes the run cgroups under {@code parent} whose magus is certainly gone (a
     * crash, a kill -9 with its watchdog): what still runs in one is a run's leftover, with the
     * run's grant. A cgroup of a magus still running, or of one that cannot be told, stays.
     *
     * @return the cgroups removed
     */
    static List<Path> sweep(Path parent) {
        List<Path> removed = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(parent, PREFIX + "*")) {
            for (Path dir : dirs) {
                Optional<ProcessIdentity> owner = ProcessIdentity.parse(dir.getFileName().toString().substring(PREFIX.length()));
                if (owner.isPresent() && owner.get().liveness() == ProcessIdentity.Liveness.GONE
                        && new RunCgroup(dir, "").end(Duration.ofSeconds(1)) instanceof RunCgroup.End.Gone g && g.removed()) {
                    removed.add(dir);
                }
            }
        } catch (IOException | RuntimeException e) {
            // An unreadable parent holds nothing we could remove.
        }
        return List.copyOf(removed);
    }
}
