package dev.magus.workspace.lease;

import dev.magus.workspace.jobs.Job;
import java.util.Objects;

/** What a run's checkout is bound to, as the lookup found it. */
public sealed interface Lease {

    /**
     * No job to narrow by: no marker, no job store, or a marker naming a job the store does not
     * have (the specification's "unknown job": unchanged).
     *
     * @param why one line for {@code magus policy}
     */
    record None(String why) implements Lease {
        public None {
            Objects.requireNonNull(why, "why");
        }
    }

    /** A marker and the job row it names (which may be ended, or a root job: the narrowing decides). */
    record Bound(Marker marker, Job job) implements Lease {
        public Bound {
            Objects.requireNonNull(marker, "marker");
            Objects.requireNonNull(job, "job");
        }
    }
}
