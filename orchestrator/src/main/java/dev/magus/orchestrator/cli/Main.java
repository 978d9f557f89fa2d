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
        return configure(new CommandLine(new MagusCommand())).execute(args);
    }

    /** The parser settings of {@code bin/magus}, shared with the tests' in-process command line. */
    static CommandLine configure(CommandLine commandLine) {
        commandLine.setCaseInsensitiveEnumValuesAllowed(false)
                // `magus run ls -la`: everything after the command is the command's, not magus's.
                .setStopAtPositional(true)
                .setExitCodeExceptionMapper(new ExitCodes());
        // No command follows their positionals, so `magus job show 2 --json` is an option.
        commandLine.getSubcommands().get("job").setStopAtPositional(false);
        commandLine.getSubcommands().get("lease").setStopAtPositional(false);
        return commandLine;
    }
}
