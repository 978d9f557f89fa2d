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
                .setExitCodeExceptionMapper(new ExitCodes())
                .execute(args);
    }
}
