package dev.magus.cli;

import dev.magus.orchestrator.run.Host;
import dev.magus.workspace.StateDir;
import java.nio.file.Path;

/**
 * Where the job and lease commands find magus's state: the state dir of the host (as a nested
 * magus would, through {@code MAGUS_STATE_DIR}) and the cache dir that keys the lease markers
 * (the one the core footprint grants).
 */
record JobStoreAccess(StateDir state, Path cacheDir) {
    static JobStoreAccess of(Host host) {
        return new JobStoreAccess(host.stateDir(), host.facts(host.tempBase()).magusCacheDir());
    }
}
