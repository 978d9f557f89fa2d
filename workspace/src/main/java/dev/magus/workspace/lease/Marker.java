package dev.magus.workspace.lease;

import dev.magus.workspace.jobs.JobId;
import java.nio.file.Path;
import java.util.Objects;

/**
 * One lease: a checkout bound to a job.
 *
 * @param checkout the checkout's resolved root
 * @param job      the job it works for
 * @param file     the marker file that records it
 */
public record Marker(Path checkout, JobId job, Path file) {
    public Marker {
        Objects.requireNonNull(checkout, "checkout");
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(file, "file");
    }
}
