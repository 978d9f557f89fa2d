package dev.magus.workspace.jobs;

import java.time.Instant;
import java.util.Objects;

/**
 * One row of a job's trail.
 *
 * @param seq   its place in the store's order (grows across all jobs)
 * @param job   the job it belongs to
 * @param at    when it was recorded
 * @param event what happened
 */
public record TrailEntry(long seq, JobId job, Instant at, TrailEvent event) {
    public TrailEntry {
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(event, "event");
    }
}
