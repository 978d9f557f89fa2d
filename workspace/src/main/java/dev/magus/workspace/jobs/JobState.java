package dev.magus.workspace.jobs;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a job is in its life. Only a live job narrows a lease; an ended one carries when it
 * ended, so "ended" and "has an end time" cannot disagree.
 */
public sealed interface JobState {

    /** {@code live}, {@code done} or {@code failed}: the store's and the CLI's spelling. */
    String label();

    /** When it ended; empty while live. */
    Optional<Instant> ended();

    /** Still running: its lease narrows the checkout's grant. */
    record Live() implements JobState {
        @Override
        public String label() {
            return "live";
        }

        @Override
        public Optional<Instant> ended() {
            return Optional.empty();
        }
    }

    /** Ended well. */
    record Done(Instant at) implements JobState {
        public Done {
            Objects.requireNonNull(at, "at");
        }

        @Override
        public String label() {
            return "done";
        }

        @Override
        public Optional<Instant> ended() {
            return Optional.of(at);
        }
    }

    /** Ended badly. */
    record Failed(Instant at) implements JobState {
        public Failed {
            Objects.requireNonNull(at, "at");
        }

        @Override
        public String label() {
            return "failed";
        }

        @Override
        public Optional<Instant> ended() {
            return Optional.of(at);
        }
    }
}
