package dev.magus.cli;

import dev.magus.cli.server.ServerCommand;
import picocli.CommandLine;

/** Entry point of {@code bin/magus}. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        // First: from here no SIGINT, SIGTERM or SIGHUP is lost (see Signals).
        Signals.install();
        System.exit(execute(args));
    }

    /** Runs the command line and returns its exit status (for tests and for main). */
    public static int execute(String... args) {
        return commandLine(CommandLine.defaultFactory()).execute(args);
    }

    /**
     * The command line as {@code bin/magus} runs it, its commands made by {@code factory} (a
     * test's hands them a fake host): the exit statuses of {@link ExitCodes}, and
     * {@link Failures} in place of picocli's own handlers, which print stack traces.
     */
    static CommandLine commandLine(CommandLine.IFactory factory) {
        Failures failures = new Failures();
        CommandLine cl = new CommandLine(new MagusCommand(), factory)
                .setCaseInsensitiveEnumValuesAllowed(false)
                .setExitCodeExceptionMapper(new ExitCodes())
                .setExecutionExceptionHandler(failures)
                .setParameterExceptionHandler(failures);
        // `magus run ls -la`: everything after the command is the command's, not magus's. Only
        // for run: `magus check write out.txt --cwd DIR` keeps its option after the path.
        cl.getSubcommands().get("run").setStopAtPositional(true);
        cl.getSubcommands().get("learn").setStopAtPositional(true);
        cl.getSubcommands().get("target").setStopAtPositional(true);
        // magus server: its own exit statuses and failure handling, as each command has.
        cl.addSubcommand("server", new CommandLine(new ServerCommand(), factory)
                .setExitCodeExceptionMapper(new ExitCodes())
                .setExecutionExceptionHandler(failures)
                .setParameterExceptionHandler(failures));
        return cl;
    }
}
