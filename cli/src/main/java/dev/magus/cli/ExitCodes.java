package dev.magus.cli;

import dev.magus.events.SandboxException;
import picocli.CommandLine.IExitCodeExceptionMapper;

/** magus run's exit statuses (docs/network.md) for failures that escape a command: a refusal before any child is 125. */
final class ExitCodes implements IExitCodeExceptionMapper {
    static final int REFUSED = 125;
    static final int NOT_EXECUTABLE = 126;
    static final int NOT_FOUND = 127;
    /**
     * A command line magus cannot act on: like any refusal before a child starts, 125, so it
     * never reads as a status of the child's own.
     */
    static final int USAGE = REFUSED;

    @Override
    public int getExitCode(Throwable exception) {
        if (exception instanceof SandboxException) {
            return REFUSED;
        }
        return exception instanceof picocli.CommandLine.ParameterException ? USAGE : 1;
    }
}
