package dev.magus.workspace.jobs;

import dev.magus.policy.lease.LeaseJob;
import dev.magus.policy.lease.WriteGlob;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One row of the job store.
 *
 * @param id         the row id
 * @param parent     the job that delegated this one; empty for a root job (never narrowed)
 * @param state      live, done or failed (with its end time)
 * @param writePaths globs relative to the checkout root, in the order given
 * @param created    when it was added
 */
public record Job(JobId id, Optional<JobId> parent, JobState state, List<WriteGlob> writePaths, Instant created) {
    public Job {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(parent, "parent");
        Objects.requireNonNull(state, "state");
        writePaths = List.copyOf(writePaths);
        Objects.requireNonNull(created, "created");
    }

    public boolean live() {
        return state instanceof JobState.Live;
    }

    /** The facts the narrowing decides on, and the store whose trail a run under it writes. */
    public LeaseJob lease(java.nio.file.Path store) {
        return new LeaseJob(id.toString(), live(), parent.isPresent(), writePaths, java.util.Optional.of(store));
    }
}
