package dev.magus.workspace.lease;

import dev.magus.events.SandboxException;
import dev.magus.policy.fs.Ruleset;
import dev.magus.policy.lease.LeaseNarrowing;
import dev.magus.policy.lease.LeaseScope;
import dev.magus.policy.lease.Narrowing;
import dev.magus.policy.lease.Tree;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.jobs.Job;
import dev.magus.workspace.jobs.JobStore;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * From a run's workspace to its lease and its narrowing. Fails closed: a marker or a job store
 * that cannot be read is a {@link Narrowing.Refused} (MGS2004 naming the file), never "no
 * lease, so the full grant".
 *
 * @param state    magus's state dir
 * @param cacheDir magus's cache dir (it keys the markers, and stays writable)
 */
public record LeaseLookup(StateDir state, Path cacheDir) {
    public LeaseLookup {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(cacheDir, "cacheDir");
    }

    /**
     * The lease holding for a run in {@code resolvedDir}.
     *
     * @throws SandboxException MGS2004 when a marker or the store cannot be read
     */
    public Lease lease(Path resolvedDir) {
        Optional<Marker> marker = new LeaseMarkers(state, cacheDir).covering(resolvedDir);
        if (marker.isEmpty()) {
            return new Lease.None("no lease on " + resolvedDir + " or above it");
        }
        Marker m = marker.get();
        Optional<JobStore> opened = JobStore.openExisting(state.jobsDb());
        if (opened.isEmpty()) {
            return new Lease.None("the lease names job " + m.job() + " but there is no job store (" + state.jobsDb() + ")");
        }
        try (JobStore store = opened.get()) {
            Optional<Job> job = store.find(m.job());
            return job.<Lease>map(j -> new Lease.Bound(m, j))
                    .orElseGet(() -> new Lease.None("the lease names job " + m.job() + ", which " + store.file() + " does not have"));
        }
    }

    /**
     * The narrowing of a run in {@code resolvedDir} whose layers granted {@code rules}.
     *
     * @param privateTemp the run's private temp dir (stays writable)
     * @param tree        the checkout's files
     */
    public Narrowing narrowing(Ruleset rules, Path resolvedDir, Path privateTemp, Tree tree) {
        Lease lease;
        try {
            lease = lease(resolvedDir);
        } catch (SandboxException e) {
            return new Narrowing.Refused(e.diagnostic());
        }
        if (lease instanceof Lease.None none) {
            return new Narrowing.Unchanged(none.why());
        }
        Lease.Bound bound = (Lease.Bound) lease;
        LeaseScope scope = new LeaseScope(bound.marker().checkout(), cacheDir.toAbsolutePath(), privateTemp, state.dir());
        return LeaseNarrowing.plan(rules, bound.job().lease(), scope, tree);
    }
}
