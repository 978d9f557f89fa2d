package dev.magus.workspace.lease;

import dev.magus.events.MagusEnv;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import dev.magus.policy.fs.Ruleset;
import dev.magus.policy.lease.CarriedLease;
import dev.magus.policy.lease.LeaseNarrowing;
import dev.magus.policy.lease.LeaseScope;
import dev.magus.policy.lease.Narrowing;
import dev.magus.policy.lease.Tree;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.jobs.Job;
import dev.magus.workspace.jobs.JobStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * From a run's workspace to its lease and its narrowing. Fails closed: a marker or a job store
 * that cannot be read is a {@link Narrowing.Refused} (MGS2004 naming the file), never "no
 * lease, so the full grant".
 *
 * <p>The scope the narrowing compares rules with is resolved here (symbolic links followed, as
 * the policy's rules are): a state dir reached through a link ({@code XDG_STATE_HOME} pointing
 * into the workspace, say) is still recognised as the state dir, so no grant can reach it.
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
    private Lease lease(Path resolvedDir, Optional<Path> carried) {
        Optional<Marker> marker = new LeaseMarkers(state, cacheDir).covering(resolvedDir, carried);
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
     * The narrowing of a run in {@code resolvedDir} whose layers granted {@code rules}, by the
     * checkout's own lease only.
     *
     * @param privateTemp the run's private temp dir (stays writable)
     * @param tree        the checkout's files
     */
    public Narrowing narrowing(Ruleset rules, Path resolvedDir, Path privateTemp, Tree tree) {
        try {
            Leasing l = leasing(rules, resolvedDir, privateTemp, tree, List.of());
            return l.applied().isEmpty() ? new Narrowing.Unchanged(String.join("; ", l.notes())) : l.applied().get(0);
        } catch (SandboxException e) {
            return new Narrowing.Refused(e.diagnostic());
        }
    }

    /**
     * Every lease holding for a run in {@code resolvedDir}: those its parent run carried
     * ({@code MAGUS_LEASE}), then the checkout's own, each narrowing what the one before left. A
     * carried checkout's marker this process cannot read is no error (a confined nested magus
     * cannot read the state dir). A readable marker binding a carried checkout to another job, or
     * a lease on a checkout inside or around a carried one, is refused: two jobs cannot share a
     * checkout.
     *
     * @throws SandboxException MGS2004 when a marker or the store cannot be read, or a lease cannot be honored
     */
    public Leasing leasing(Ruleset rules, Path resolvedDir, Path privateTemp, Tree tree, List<CarriedLease> carried) {
        // Resolved only when a lease is there to narrow with (about 20 system calls a run without one),
        // and then at that moment, as before: nothing resolved is kept across runs.
        java.util.function.Function<Path, LeaseScope> scopeOf = checkout -> new LeaseScope(checkout,
                real(cacheDir.toAbsolutePath()), real(privateTemp.toAbsolutePath()), real(state.dir()));
        List<Narrowing.Narrowed> applied = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        Ruleset current = rules;
        for (CarriedLease c : carried) {
            Narrowing n = LeaseNarrowing.plan(current, c.leaseJob(), scopeOf.apply(c.checkout()), tree);
            current = apply(n, current, applied, notes);
        }
        Optional<Path> carriedHere = carried.stream().map(CarriedLease::checkout)
                .filter(resolvedDir::startsWith).max((a, b) -> Integer.compare(a.getNameCount(), b.getNameCount()));
        Lease lease = lease(resolvedDir, carriedHere);
        if (lease instanceof Lease.None none) {
            if (carried.isEmpty()) {
                notes.add(none.why());
            }
            return new Leasing(applied, notes);
        }
        Lease.Bound bound = (Lease.Bound) lease;
        Path checkout = bound.marker().checkout();
        for (CarriedLease c : carried) {
            if (c.checkout().equals(checkout)) {
                if (c.job().equals(bound.job().id().toString())) {
                    // The same lease the parent run carried: already applied.
                    return new Leasing(applied, notes);
                }
                throw refuse(checkout + " is leased to job " + bound.job().id() + ", but this run carries the lease of job "
                        + c.job() + " on it (" + MagusEnv.LEASE + "); a run is held to one job per checkout",
                        bound.marker().file());
            }
            if (checkout.startsWith(c.checkout()) || c.checkout().startsWith(checkout)) {
                throw refuse("the lease on " + checkout + " (job " + bound.job().id() + ") and the carried lease on "
                        + c.checkout() + " (job " + c.job() + ", " + MagusEnv.LEASE + ") nest; a checkout inside"
                        + " another job's cannot be leased again from within a run", bound.marker().file());
            }
        }
        LeaseScope scope = scopeOf.apply(checkout);
        apply(LeaseNarrowing.plan(current, bound.job().lease(state.jobsDb()), scope, tree), current, applied, notes);
        return new Leasing(applied, notes);
    }

    private static Ruleset apply(Narrowing n, Ruleset current, List<Narrowing.Narrowed> applied, List<String> notes) {
        if (n instanceof Narrowing.Refused r) {
            throw r.exception();
        }
        if (n instanceof Narrowing.Unchanged u) {
            notes.add(u.why());
            return current;
        }
        Narrowing.Narrowed narrowed = (Narrowing.Narrowed) n;
        applied.add(narrowed);
        return narrowed.ruleset();
    }

    /**
     * {@code p} with every symbolic link in its existing part followed; the part that does not
     * exist yet is appended as it is (a state dir may not exist before the first job).
     */
    static Path real(Path p) {
        Path abs = p.toAbsolutePath().normalize();
        Path existing = abs;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return abs;
        }
        try {
            return existing.toRealPath().resolve(existing.relativize(abs)).normalize();
        } catch (IOException e) {
            return abs;
        }
    }

    private static SandboxException refuse(String message, Path subject) {
        return new SandboxException(Diagnostic.of(Code.MGS2004, "lease cannot be honored: " + message, subject.toString(),
                Operation.NONE, Layer.POLICY, MagusEnv.LEASE));
    }
}
