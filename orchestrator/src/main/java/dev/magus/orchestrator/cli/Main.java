package dev.magus.orchestrator.cli;

import picocli.CommandLine;

/** Entry point of {@code bin/magus}. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /** Runs the command line and returns its exit status (for tests and for main). */
    public static int execute(String... args) {
        return new CommandLine(new MagusCommand())
                .setCaseInsensitiveEnumValuesAllowed(false)
                // `magus run ls -la`: everything after the command is the command's, not magus's.
                .setStopAtPositional(true)
                .setExitCodeExceptionMapper(new ExitCodes())
                .execute(args);
    }
}
