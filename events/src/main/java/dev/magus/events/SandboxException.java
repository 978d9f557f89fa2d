package dev.magus.events;

import java.util.Objects;

/**
 * A failure the user must act on. It always carries its diagnostic; catch it only to
 * report that diagnostic, never to downgrade it.
 */
public class SandboxException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient Diagnostic diagnostic;

    public SandboxException(Diagnostic diagnostic) {
        super(diagnostic.oneLine() + (diagnostic.source().isEmpty() ? "" : " (" + diagnostic.source() + ")"));
        this.diagnostic = Objects.requireNonNull(diagnostic);
    }

    public SandboxException(Diagnostic diagnostic, Throwable cause) {
        this(diagnostic);
        initCause(cause);
    }

    public Diagnostic diagnostic() {
        return diagnostic;
    }

    public Code code() {
        return diagnostic.code();
    }
}
