package dev.magus.orchestrator.pipeline;

import dev.magus.events.DetailKey;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import dev.magus.policy.Policy;
import dev.magus.policy.PolicyOrOff;
import dev.magus.policy.lease.Narrowing;
import dev.magus.workspace.jobs.JobId;
import dev.magus.workspace.jobs.JobStore;
import dev.magus.workspace.jobs.TrailEvent;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A leased run's rows in its job's trail: {@code run_started} before the child starts, a
 * {@code sandbox_denial} for each refusal the lease caused, and {@code run_ended}. A store that
 * cannot be written refuses the run (MGS2004) before anything runs; one that fails mid-run fails
 * the run at {@link #end}, since its trail is no longer whole. Denials are written in order on a
 * thread of their own, at most {@link #MAX_DENIAL_ROWS} per run, the rest counted.
 *
 * <p>A lease carried from a parent run has no store here: the parent writes the rows, from the
 * nested magus's refusals it infers from the output and confirms with its own narrowed policy
 * ({@link #observeNested}).
 */
final class LeaseTrail {
    /** Refusal rows one run may write; a run that trips thousands of them is recorded by count. */
    static final int MAX_DENIAL_ROWS = 1_000;

    private final JobStore store;
    private final Policy policy;
    private final JobId job;
    private final String runId;
    private final ExecutorService writer;
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong omitted = new AtomicLong();
    private final AtomicReference<SandboxException> failure = new AtomicReference<>();

    private LeaseTrail(JobStore store, Policy policy, JobId job, String runId) {
        this.store = store;
        this.policy = policy;
        this.job = job;
        this.runId = runId;
        this.writer = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "magus-trail-" + runId);
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * A leased run: from now on each of its diagnostics names the job when the lease caused it,
     * and the job's trail (when this process can reach its store) gets run_started now and a
     * sandbox_denial for each such refusal; the caller ends it ({@link #end}).
     *
     * @throws SandboxException MGS2004 when the trail cannot be started: the run is refused
     */
    static Optional<LeaseTrail> attach(RunJournal journal, PolicyOrOff policy, String runId, Path dir, List<String> argv) {
        Optional<Policy> p = policy.policy().filter(x -> !x.leases().isEmpty());
        if (p.isEmpty()) {
            return Optional.empty();
        }
        Optional<LeaseTrail> trail = start(p.get(), runId, dir, argv);
        journal.observeDiagnostics(d -> {
            Diagnostic named = p.get().attribute(d);
            trail.ifPresent(t -> t.observe(named));
            return named;
        });
        return trail;
    }

    /**
     * Opens the trail of the lease that narrowed {@code policy} from the job store, and writes
     * {@code run_started}; empty when no such lease holds.
     *
     * @throws SandboxException MGS2004 naming the store when it cannot be written
     */
    static Optional<LeaseTrail> start(Policy policy, String runId, Path dir, List<String> argv) {
        for (Narrowing.Narrowed n : policy.leases()) {
            if (n.job().store().isEmpty()) {
                continue;
            }
            JobId id = JobId.parse(n.job().id()).orElseThrow(() -> new IllegalStateException("job id " + n.job().id()));
            JobStore store = JobStore.open(n.job().store().get());
            try {
                store.record(id, new TrailEvent.RunStarted(runId, dir, String.join(" ", argv)));
            } catch (RuntimeException e) {
                store.close();
                throw e;
            }
            return Optional.of(new LeaseTrail(store, policy, id, runId));
        }
        return Optional.empty();
    }

    /**
     * A refusal of a nested magus's child, which that magus reports itself but cannot write
     * to the store: attributed by this run's policy and queued like the run's own.
     */
    void observeNested(Diagnostic d) {
        observe(policy.attribute(d));
    }

    /** Queues a {@code sandbox_denial} when {@code d} is a refusal this trail's job caused. */
    void observe(Diagnostic d) {
        if (d.code() != Code.MGS2002 || !job.toString().equals(d.details().get(DetailKey.JOB.key()))) {
            return;
        }
        if (written.incrementAndGet() > MAX_DENIAL_ROWS) {
            omitted.incrementAndGet();
            return;
        }
        Path path;
        try {
            path = Path.of(d.subject());
        } catch (InvalidPathException e) {
            path = Path.of("/").resolve(d.subject().replace('\0', '?'));
        }
        TrailEvent.SandboxDenial row = new TrailEvent.SandboxDenial(path,
                d.operation() == Operation.NONE ? Operation.WRITE : d.operation(), d.code(), d.layer(), Optional.of(runId),
                TrailEvent.SandboxDenial.sourceOf(d.source()) + decision(d));
        writer.execute(() -> {
            if (failure.get() != null) {
                return;
            }
            try {
                store.record(job, row);
            } catch (SandboxException e) {
                failure.compareAndSet(null, e);
            }
        });
    }

    /** An approver's decision about the refusal ({@code --ask}), kept with the row's source: {@code supervisor (deny)}. */
    private static String decision(Diagnostic d) {
        String decided = d.details().get(DetailKey.DECISION.key());
        return decided == null ? "" : " (" + decided + ")";
    }

    /**
     * Writes {@code run_ended} once the queued denials are in, and closes the store.
     *
     * @return the MGS2004 to report when any row could not be written
     */
    Optional<Diagnostic> end(int status) {
        writer.shutdown();
        try {
            if (!writer.awaitTermination(JobStore.DEFAULT_BUSY_TIMEOUT_MS * 4L, TimeUnit.MILLISECONDS)) {
                writer.shutdownNow();
                failure.compareAndSet(null, new SandboxException(Diagnostic.of(Code.MGS2004, "job store " + store.file()
                        + " did not take this run's trail rows in time", store.file().toString(), Operation.NONE,
                        Layer.POLICY, store.file().toString())));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            if (failure.get() == null) {
                store.record(job, new TrailEvent.RunEnded(runId, status, omitted.get()));
            }
        } catch (SandboxException e) {
            failure.compareAndSet(null, e);
        } finally {
            store.close();
        }
        SandboxException f = failure.get();
        if (f == null) {
            return Optional.empty();
        }
        Diagnostic d = f.diagnostic();
        return Optional.of(new Diagnostic(d.code(), "the trail of job " + job + " is incomplete, so the run fails: "
                + d.message(), d.subject(), d.operation(), d.layer(), d.source(), d.details()).withDetail(DetailKey.JOB, job.toString()));
    }
}
