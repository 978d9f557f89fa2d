package dev.magus.orchestrator.pipeline;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.SandboxException;
import java.util.Objects;

/**
 * A stage's refusal, as the error signal of the run's chain ({@link RunStages}): what the run
 * says about it and the exit status it ends with (docs/network.md). No child starts after one; the
 * chain's release reports it ({@link Attempt#refused}) after the diagnostics held back so far.
 * Stackless: a refusal is an answer, not a failure of magus, and costs no stack walk.
 */
abstract sealed class Refusal extends RuntimeException permits Refusal.Diagnosed, Refusal.Said {
    private final int status;

    private Refusal(String message, int status) {
        super(message, null, false, false);
        this.status = status;
    }

    /** The run's exit status: 125 for a refusal of the sandbox, 126 not runnable or MGS2007, 127 not found. */
    final int status() {
        return status;
    }

    /** A refusal with its MGS diagnostic, which becomes an event of the run. */
    static final class Diagnosed extends Refusal {
        private final Diagnostic diagnostic;

        Diagnosed(Diagnostic diagnostic, int status) {
            super(diagnostic.code() + ": " + diagnostic.message(), status);
            this.diagnostic = diagnostic;
        }

        Diagnostic diagnostic() {
            return diagnostic;
        }
    }

    /** A refusal a shell would state in one line of its own (127 not found, 126 not runnable); no MGS code. */
    static final class Said extends Refusal {
        private final String line;

        Said(String line, int status) {
            super(line, status);
            this.line = Objects.requireNonNull(line, "line");
        }

        String line() {
            return line;
        }
    }

    /** How a stage's failure travels the chain: a {@link SandboxException} as its refusal, anything else as it is. */
    static Throwable signal(Throwable e) {
        return e instanceof SandboxException s ? of(s) : e;
    }

    /** A stage's {@link SandboxException}: 126 for the binding layer's exec refusal (MGS2007), else 125. */
    static Refusal of(SandboxException e) {
        return new Diagnosed(e.diagnostic(), e.code() == Code.MGS2007 ? 126 : 125);
    }
}
