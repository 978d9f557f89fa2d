package dev.magus.landlock.denials.infer;

import dev.magus.events.Operation;
import java.util.List;

/**
 * The access a permission-denied message implies. {@code UNKNOWN} when the message names a
 * path but not what was done to it (Python's {@code PermissionError}, Java's
 * {@code AccessDeniedException}, bash's bare {@code bash: /x: Permission denied}, which is
 * printed alike for a redirect and an exec).
 */
public enum AccessHint {
    READ, WRITE, EXEC, UNKNOWN;

    /** The operations to ask the policy about, most likely first. */
    public List<Operation> operations() {
        return switch (this) {
            case READ -> List.of(Operation.READ);
            case WRITE -> List.of(Operation.WRITE);
            case EXEC -> List.of(Operation.EXEC);
            case UNKNOWN -> List.of(Operation.READ, Operation.WRITE, Operation.EXEC);
        };
    }
}
