package dev.magus.workspace.jobs;

/**
 * A job's id: the store's row id, shown and typed as a plain number.
 *
 * @param value positive
 */
public record JobId(long value) {
    public JobId {
        if (value <= 0) {
            throw new IllegalArgumentException("a job id is a positive number: " + value);
        }
    }

    /** Parses what a person typed; empty when it is not a positive number. */
    public static java.util.Optional<JobId> parse(String text) {
        try {
            long v = Long.parseLong(text.trim());
            return v > 0 ? java.util.Optional.of(new JobId(v)) : java.util.Optional.empty();
        } catch (NumberFormatException e) {
            return java.util.Optional.empty();
        }
    }

    @Override
    public String toString() {
        return Long.toString(value);
    }
}
