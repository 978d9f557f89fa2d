package dev.magus.policy;

import dev.magus.events.Diagnostic;
import dev.magus.events.SandboxException;
import java.nio.file.Path;
import java.util.Objects;

/** The answer of the binding-layer check. */
public sealed interface Verdict permits Verdict.Allowed, Verdict.Denied {

    boolean allowed();

    /**
     * The resolved path to operate on, or the denial as the exception a binding throws.
     *
     * @throws SandboxException carrying the denial's diagnostic
     */
    default Path orThrow() {
        if (this instanceof Denied d) {
            throw new SandboxException(d.diagnostic());
        }
        return ((Allowed) this).resolved();
    }

    /** Go ahead, on {@code resolved}: the path the operation really reaches. */
    record Allowed(Path resolved) implements Verdict {
        public Allowed {
            Objects.requireNonNull(resolved, "resolved");
        }

        @Override
        public boolean allowed() {
            return true;
        }
    }

    /** Refused: MGS2001, MGS2002, MGS2007 or MGS2009, with what would allow it. */
    record Denied(Diagnostic diagnostic) implements Verdict {
        public Denied {
            Objects.requireNonNull(diagnostic, "diagnostic");
        }

        @Override
        public boolean allowed() {
            return false;
        }
    }
}
