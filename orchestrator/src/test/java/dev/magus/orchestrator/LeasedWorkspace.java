package dev.magus.orchestrator;

import dev.magus.orchestrator.run.Host;

import dev.magus.policy.lease.WriteGlob;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.jobs.Job;
import dev.magus.workspace.jobs.JobStore;
import dev.magus.workspace.lease.LeaseMarkers;
import dev.magus.workspace.lease.Marker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A test host's workspace leased to a delegated job, as {@code magus job add --parent} and
 * {@code magus lease acquire} make it: a root job, its child with {@code globs}, the marker.
 *
 * @param state    the host's state dir (job store, markers, quarantine)
 * @param cacheDir magus's cache dir for the host, which stays writable under the lease
 * @param job      the delegated job
 * @param marker   the workspace's lease
 */
record LeasedWorkspace(StateDir state, Path cacheDir, Job job, Marker marker) {

    static LeasedWorkspace of(TestHost t, String... globs) throws IOException {
        Host host = t.host();
        StateDir state = StateDir.of(host.env(), host.home());
        Path cacheDir = Files.createDirectories(host.facts(host.tempBase()).magusCacheDir());
        Job child;
        try (JobStore store = JobStore.open(state.jobsDb())) {
            Job parent = store.add(Optional.empty(), List.of());
            child = store.add(Optional.of(parent.id()), Arrays.stream(globs).map(g -> WriteGlob.parse(g, "test")).toList());
        }
        return new LeasedWorkspace(state, cacheDir, child, new LeaseMarkers(state, cacheDir).acquire(t.workspace, child.id()));
    }
}
