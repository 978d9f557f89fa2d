package dev.magus.policy.lease;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Where a narrowed run stands, every path absolute and already resolved.
 *
 * @param checkout    the leased checkout's root: write_paths are globbed against it
 * @param cacheDir    magus's cache dir, which stays writable
 * @param privateTemp the run's private temp dir, which stays writable
 * @param stateDir    magus's state dir (job store, lease markers), which no write rule may reach
 */
public record LeaseScope(Path checkout, Path cacheDir, Path privateTemp, Path stateDir) {
    public LeaseScope {
        checkout = absolute(checkout, "checkout");
        cacheDir = absolute(cacheDir, "cacheDir");
        privateTemp = absolute(privateTemp, "privateTemp");
        stateDir = absolute(stateDir, "stateDir");
    }

    private static Path absolute(Path p, String what) {
        Objects.requireNonNull(p, what);
        if (!p.isAbsolute()) {
            throw new IllegalArgumentException(what + " must be absolute: " + p);
        }
        return p.normalize();
    }
}
