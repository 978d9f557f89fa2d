package dev.magus.workspace;

import dev.magus.policy.HostFacts;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * magus's state dir: the job store, the lease markers and the control-file audit's last walks
 * ({@code audit/}). {@code MAGUS_STATE_DIR} when set
 * (a sandboxed run hands it to its children, so a nested magus finds the same lease), else
 * {@code $XDG_STATE_HOME/magus}, else {@code ~/.local/state/magus}; relative values are
 * ignored, as for every XDG variable.
 *
 * <p>It is never inside a run's write grant: the core footprint grants the cache dir and the
 * workspace, not this; a lease whose grant would reach it is refused.
 *
 * @param dir absolute
 */
public record StateDir(Path dir) {
    public StateDir {
        Objects.requireNonNull(dir, "dir");
        if (!dir.isAbsolute()) {
            throw new IllegalArgumentException("state dir must be absolute: " + dir);
        }
        dir = dir.normalize();
    }

    public static StateDir of(Map<String, String> env, Path home) {
        return new StateDir(HostFacts.stateDirOf(env, home));
    }

    /** The job store. */
    public Path jobsDb() {
        return dir.resolve("jobs.db");
    }

    /** The lease markers of the magus whose cache dir is {@code cacheDir}. */
    public Path checkouts(Path cacheDir) {
        return dir.resolve("checkouts").resolve(Hashes.of(cacheDir.toAbsolutePath().normalize().toString()));
    }
}
