package dev.magus.workspace.jobs;

import dev.magus.events.Code;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * What a job's trail records. The store keeps each as one row with a {@link #kind()}; the
 * sandbox writes {@link SandboxDenial}s, the CLI the rest.
 */
public sealed interface TrailEvent {

    /** The stored spelling: {@code created}, {@code ended}, {@code lease_acquired}, {@code lease_released}, {@code run_started}, {@code run_ended},
     * {@code sandbox_denial}. */
    String kind();

    /** The job was added. */
    record Created() implements TrailEvent {
        @Override
        public String kind() {
            return "created";
        }
    }

    /** The job ended in {@code state} (done or failed). */
    record Ended(String state) implements TrailEvent {
        public Ended {
            Objects.requireNonNull(state, "state");
        }

        @Override
        public String kind() {
            return "ended";
        }
    }

    /** A checkout was bound to the job. */
    record LeaseAcquired(Path checkout) implements TrailEvent {
        public LeaseAcquired {
            Objects.requireNonNull(checkout, "checkout");
        }

        @Override
        public String kind() {
            return "lease_acquired";
        }
    }

    /** A checkout was unbound from the job. */
    record LeaseReleased(Path checkout) implements TrailEvent {
        public LeaseReleased {
            Objects.requireNonNull(checkout, "checkout");
        }

        @Override
        public String kind() {
            return "lease_released";
        }
    }

    /**
     * A sandboxed run started under the job's lease.
     *
     * @param run     the run's id
     * @param dir     its working directory
     * @param command its command line, as one line
     */
    record RunStarted(String run, Path dir, String command) implements TrailEvent {
        public RunStarted {
            Objects.requireNonNull(run, "run");
            Objects.requireNonNull(dir, "dir");
            Objects.requireNonNull(command, "command");
        }

        @Override
        public String kind() {
            return "run_started";
        }
    }

    /**
     * A run under the job's lease ended.
     *
     * @param run     the run's id
     * @param status  its exit status (magus run's: 125 refused, 128+N signalled, ...)
     * @param omitted refusals beyond the rows one run may write ({@code sandbox_denial}s not recorded)
     */
    record RunEnded(String run, int status, long omitted) implements TrailEvent {
        public RunEnded {
            Objects.requireNonNull(run, "run");
        }

        @Override
        public String kind() {
            return "run_ended";
        }
    }

    /**
     * A refusal the job's narrowing caused.
     *
     * @param path      the path refused
     * @param operation the access refused
     * @param code      its diagnostic code (MGS2002)
     * @param layer     the layer that refused it
     * @param run       the run it happened in, when a run recorded it
     * @param source    how the report was made, without its stream: {@code inferred} (from the
     *                  tool's output), {@code audit}, {@code binding}...; empty when not known
     */
    record SandboxDenial(Path path, Operation operation, Code code, Layer layer, Optional<String> run, String source)
            implements TrailEvent {
        public SandboxDenial {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(operation, "operation");
            Objects.requireNonNull(code, "code");
            Objects.requireNonNull(layer, "layer");
            Objects.requireNonNull(run, "run");
            Objects.requireNonNull(source, "source");
        }

        public SandboxDenial(Path path, Operation operation, Code code, Layer layer, Optional<String> run) {
            this(path, operation, code, layer, run, "");
        }

        public SandboxDenial(Path path, Operation operation, Code code, Layer layer) {
            this(path, operation, code, layer, Optional.empty());
        }

        /** A diagnostic's {@code source} as a trail row keeps it: {@code inferred:stderr} is {@code inferred}. */
        public static String sourceOf(String diagnosticSource) {
            int colon = diagnosticSource.indexOf(':');
            return colon < 0 ? diagnosticSource : diagnosticSource.substring(0, colon);
        }

        @Override
        public String kind() {
            return "sandbox_denial";
        }
    }
}
