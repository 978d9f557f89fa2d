package dev.magus.policy.lease;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The job a checkout's lease resolves to, as the narrowing needs it: the job store's row
 * reduced to the facts that decide the grant, so the policy engine knows no database.
 *
 * @param id         the job's id, named in every refusal the narrowing causes
 * @param live       the job has not ended (done or failed)
 * @param hasParent  the job was delegated by another; a root job is never narrowed
 * @param writePaths the job's write_paths, already validated
 * @param store      the job store the row was read from, where a run writes its trail; empty
 *                   for a lease carried from a parent run ({@link CarriedLease}), whose run
 *                   cannot reach the store and leaves the trail to the run that carried it
 */
public record LeaseJob(String id, boolean live, boolean hasParent, List<WriteGlob> writePaths, Optional<Path> store) {
    public LeaseJob {
        Objects.requireNonNull(id, "id");
        writePaths = List.copyOf(writePaths);
        Objects.requireNonNull(store, "store");
    }

    /** A job known without its store (tests, and a carried lease). */
    public LeaseJob(String id, boolean live, boolean hasParent, List<WriteGlob> writePaths) {
        this(id, live, hasParent, writePaths, Optional.empty());
    }
}
