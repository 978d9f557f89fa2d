package dev.magus.policy.lease;

import java.util.List;
import java.util.Objects;

/**
 * The job a checkout's lease resolves to, as the narrowing needs it: the job store's row
 * reduced to the facts that decide the grant, so the policy engine knows no database.
 *
 * @param id         the job's id, named in every refusal the narrowing causes
 * @param live       the job has not ended (done or failed)
 * @param hasParent  the job was delegated by another; a root job is never narrowed
 * @param writePaths the job's write_paths, already validated
 */
public record LeaseJob(String id, boolean live, boolean hasParent, List<WriteGlob> writePaths) {
    public LeaseJob {
        Objects.requireNonNull(id, "id");
        writePaths = List.copyOf(writePaths);
    }
}
