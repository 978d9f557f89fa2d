package dev.magus.workspace.quarantine;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One thing the audit took out of the workspace or replaced, as the quarantine's manifest holds it.
 *
 * @param index   its number within the run, from 1
 * @param runId   the run that changed it
 * @param at      when the audit kept it
 * @param code    the diagnostic that reported it ({@code MGS2002}), or {@code info} when the run did not fail for it
 * @param change  {@code created}, {@code changed}, {@code removed}, or {@code keys} for a config judged key by key
 * @param what    in words: which keys, which aspect
 * @param payload the run's version as kept, when there was one at the path
 * @param bytes   the payload's size on disk, for the size cap
 * @param left    {@link Fingerprint} of what the audit left at {@code path}; restoring refuses another, unless forced
 * @param path    absolute
 */
public record Kept(int index, String runId, Instant at, String code, String change, String what, Payload payload,
        long bytes, String left, Path path) {
    public Kept {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(change, "change");
        Objects.requireNonNull(what, "what");
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(left, "left");
        Objects.requireNonNull(path, "path");
    }

    /** The run's version of the path, as kept. */
    public enum Payload {
        /** Nothing was at the path after the run: restoring removes what the audit put back. */
        NONE,
        FILE,
        DIRECTORY,
        LINK,
        /** Too large to copy and on another filesystem than the state dir: recorded, not kept. */
        NOT_KEPT;

        public String word() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Where the payload lies in the run's quarantine directory. */
    public Optional<String> payloadName() {
        return payload == Payload.NONE || payload == Payload.NOT_KEPT ? Optional.empty() : Optional.of(Integer.toString(index));
    }

    /** {@code <run id>/<index>}: how a diagnostic and {@code magus quarantine} name it. */
    public String name() {
        return runId + "/" + index;
    }
}
