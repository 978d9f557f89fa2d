package dev.magus.orchestrator;

import dev.magus.landlock.launch.Confinement;
import dev.magus.landlock.launch.Launcher;
import dev.magus.landlock.launch.Spawn;
import dev.magus.landlock.launch.SpawnRequest;
import dev.magus.landlock.launch.Spawner;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A fake {@link Spawner} for pipeline tests: records every child the pipeline asks for, with
 * the confinement it asked for, so a test can say that a refused run never reached the spawn.
 * What it then does is its delegate's: the real launcher on a host with Landlock; on one
 * without, {@link #withoutKernel()}, which starts an unconfined child for a run the pipeline
 * itself left unconfined (best-effort below ABI 1, mode off) and fails the test for one it
 * meant to confine, which such a host cannot.
 */
public final class RecordingSpawner implements Spawner {

    /** One spawn the pipeline asked for. */
    public record Call(SpawnRequest request, Confinement confinement) {
    }

    private final Spawner delegate;
    private final boolean kernel;
    private final List<Call> calls = new CopyOnWriteArrayList<>();

    private RecordingSpawner(Spawner delegate, boolean kernel) {
        this.delegate = delegate;
        this.kernel = kernel;
    }

    /** Records, then spawns with {@code delegate}. */
    public static RecordingSpawner around(Spawner delegate) {
        return new RecordingSpawner(delegate, true);
    }

    /** Records, and starts only what needs no kernel layer (no Landlock needed, Linux still is). */
    public static RecordingSpawner withoutKernel() {
        return new RecordingSpawner((request, confinement) -> {
            if (confinement instanceof Confinement.Kernel) {
                throw new AssertionError("a host without Landlock was asked to confine " + request.argv());
            }
            return Launcher.get().spawn(request, confinement);
        }, false);
    }

    /** The fake that fits this host: {@link #withoutKernel()} unless {@link TestHost#landlock()}. */
    public static RecordingSpawner forThisHost() {
        return TestHost.landlock() ? around(Launcher.get()) : withoutKernel();
    }

    @Override
    public Spawn spawn(SpawnRequest request, Confinement confinement) {
        calls.add(new Call(request, confinement));
        return delegate.spawn(request, confinement);
    }

    /** Whether a kernel confinement reaches a real launcher; false for {@link #withoutKernel()}. */
    public boolean confinesWithKernel() {
        return kernel;
    }

    public List<Call> calls() {
        return List.copyOf(calls);
    }
}
