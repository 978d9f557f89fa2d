package dev.magus.workspace.jobs;

import dev.magus.events.Code;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import java.nio.file.Path;
import java.util.Objects;

/**
 * What a job's trail records. The store keeps each as one row with a {@link #kind()}; the
 * sandbox writes {@link SandboxDenial}s, the CLI the rest.
 */
public sealed interface TrailEvent {

    /** The stored spelling: {@code created}, {@code ended}, {@code lease_acquired}, {@code lease_released}, {@code sandbox_denial}. */
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
     * A refusal the job's narrowing caused.
     *
     * @param path      the path refused
     * @param operation the access refused
     * @param code      its diagnostic code (MGS2002)
     * @param layer     the layer that refused it
     */
    record SandboxDenial(Path path, Operation operation, Code code, Layer layer) implements TrailEvent {
        public SandboxDenial {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(operation, "operation");
            Objects.requireNonNull(code, "code");
            Objects.requireNonNull(layer, "layer");
        }

        @Override
        public String kind() {
            return "sandbox_denial";
        }
    }
}
