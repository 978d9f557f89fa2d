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
        Path dir = HostFacts.stateDirOf(env, home);
        Memo last = lastOf;
        // The very path object HostFacts remembered: the state dir made from it last time.
        if (last != null && last.from() == dir) {
            return last.made();
        }
        StateDir made = new StateDir(dir);
        lastOf = new Memo(dir, made);
        return made;
    }

    /** The last {@link #of} and the path it was made from, one value (read and written at once). */
    private record Memo(Path from, StateDir made) {
        @Override
        public String toString() {
            return "Memo[" + from + "]";
        }
    }

    private static volatile Memo lastOf;

    /** The job store. */
    public Path jobsDb() {
        return dir.resolve("jobs.db");
    }

    /** The lease markers of the magus whose cache dir is {@code cacheDir}. */
    public Path checkouts(Path cacheDir) {
        return dir.resolve("checkouts").resolve(Hashes.of(cacheDir.toAbsolutePath().normalize().toString()));
    }
}
