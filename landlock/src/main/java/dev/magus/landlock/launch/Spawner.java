package dev.magus.landlock.launch;

import dev.magus.landlock.supervise.Supervisor;

/**
 * Starts one child under a confinement. The seam between the run pipeline and the kernel: the
 * {@link Launcher} is the implementation that confines with Landlock; a test gives the pipeline
 * a fake that records what it was asked to start, so that everything before the spawn (the
 * refusals above all) is tested on any host.
 */
@FunctionalInterface
public interface Spawner {

    /**
     * Starts {@code request} under {@code confinement}. Blocks for the spawn only, not for the
     * child.
     *
     * @return the running child, or why the command did not start (127 / 126)
     * @throws dev.magus.events.SandboxException when the kernel layer cannot be applied to this
     *                                           child (MGS2012 in required mode, MGS2004
     *                                           otherwise): a child never starts with less
     *                                           confinement than its decision promised
     */
    Spawn spawn(SpawnRequest request, Confinement confinement);

    /**
     * Loads and warms what {@link #spawn} needs, so that the spawn itself is short. The pipeline
     * calls it before it decides to spawn: a signal that arrives meanwhile still cancels the run
     * instead of waiting in a queue for a slow first spawn.
     */
    default void prepare() {
    }

    /**
     * {@link #spawn(SpawnRequest, Confinement)} with {@code supervisor} answering the child's
     * intercepted calls: the launch installs the user-notification filter after the domain and
     * hands it the listener before the spawn.
     *
     * @throws UnsupportedOperationException when this spawner cannot supervise (never silently unsupervised)
     */
    default Spawn spawn(SpawnRequest request, Confinement confinement, Supervisor supervisor) {
        throw new UnsupportedOperationException("this spawner cannot supervise a child");
    }

    /**
     * {@link #spawn(SpawnRequest, Confinement, Supervisor)} (a null {@code supervisor}: none)
     * with the child born in {@code placement}'s cgroup when the spawner can: whether it was is
     * read from the child's {@code /proc/PID/cgroup}, never assumed. This default ignores the
     * placement; the child is then where magus is.
     */
    default Spawn spawn(SpawnRequest request, Confinement confinement, Supervisor supervisor, Placement placement) {
        return supervisor != null ? spawn(request, confinement, supervisor) : spawn(request, confinement);
    }
}
