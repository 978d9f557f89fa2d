package dev.magus.cli;

import dev.magus.cli.server.ServerCommand;
import dev.magus.landlock.launch.Launcher;
import java.util.Map;
import picocli.CommandLine;

/** Entry point of {@code bin/magus}. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        // First: from here no SIGINT, SIGTERM or SIGHUP is lost (see Signals).
        Signals.install();
        // A command line makes a spawn or two and ends: no launcher warm-up children. Only the
        // server (`magus server`, which `magus server start` runs) serves many runs.
        if (args.length == 0 || !args[0].equals("server")) {
            Launcher.oneShot();
        }
        if (args.length > 0 && args[0].equals("run")) {
            // The launcher (JNA, the capability plan, the spare threads) is made on another
            // core while this one builds the command line and the run's first stages; the run's
            // spawn finds it ready. An ordinary, unconfined thread, as Launcher.get() asks.
            Thread prepare = new Thread(Main::prepareLauncher, "magus-launcher-prepare");
            prepare.setDaemon(true);
            prepare.start();
        }
        // Archives this JDK can no longer map are dropped, off the run's path, so that the
        // next run of their kind makes new ones (see ClassArchives).
        Thread archives = new Thread(ClassArchives::dropStale, "magus-class-archives");
        archives.setDaemon(true);
        archives.start();
        System.exit(execute(args));
    }

    private static void prepareLauncher() {
        try {
            Launcher.get();
        } catch (RuntimeException | LinkageError e) {
            // Not made: the run's own spawn makes it again and reports why, as without this.
        }
    }

    /** Runs the command line and returns its exit status (for tests and for main). */
    public static int execute(String... args) {
        return commandLine(CommandLine.defaultFactory(), args).execute(args);
    }

    /** A subcommand's command line: run's and target's from their programmatic model, any other from its annotations. */
    private static CommandLine subcommand(Class<?> type, CommandLine.IFactory factory) {
        if (!RunCommand.class.isAssignableFrom(type)) {
            return new CommandLine(type, factory);
        }
        try {
            return new CommandLine(((RunCommand) factory.create(type)).model(), factory);
        } catch (Exception e) {
            throw new CommandLine.InitializationException("cannot create " + type.getSimpleName() + ": " + e, e);
        }
    }

    /** {@link #commandLine(CommandLine.IFactory)} with every subcommand. */
    static CommandLine commandLine(CommandLine.IFactory factory) {
        return commandLine(factory, new String[0]);
    }

    /**
     * The command line as {@code bin/magus} runs it, its commands made by {@code factory} (a
     * test's hands them a fake host): the exit statuses of {@link ExitCodes}, and
     * {@link Failures} in place of picocli's own handlers, which print stack traces.
     */
    static CommandLine commandLine(CommandLine.IFactory factory, String... args) {
        Failures failures = new Failures();
        // Only the subcommand the arguments start with, when they name one: `magus run -- true`
        // has no use for the other commands' models (see MagusCommand.SUBCOMMANDS).
        String first = args.length > 0 ? args[0] : "";
        boolean one = MagusCommand.SUBCOMMANDS.containsKey(first);
        // run and target build their models without annotations (RunModel), and so does the top
        // command that holds only one of them; any other command line reads MagusCommand's.
        boolean lean = one && RunCommand.class.isAssignableFrom(MagusCommand.SUBCOMMANDS.get(first));
        CommandLine cl = new CommandLine(lean ? MagusCommand.lean() : new MagusCommand(), factory);
        for (Map.Entry<String, Class<?>> sub : MagusCommand.SUBCOMMANDS.entrySet()) {
            if (!one || sub.getKey().equals(first)) {
                cl.addSubcommand(sub.getKey(), subcommand(sub.getValue(), factory));
            }
        }
        cl.setCaseInsensitiveEnumValuesAllowed(false)
                .setExitCodeExceptionMapper(new ExitCodes())
                .setExecutionExceptionHandler(failures)
                .setParameterExceptionHandler(failures);
        // `magus run ls -la`: everything after the command is the command's, not magus's. Only
        // for run: `magus check write out.txt --cwd DIR` keeps its option after the path.
        for (String name : new String[] {"run", "learn", "target"}) {
            CommandLine sub = cl.getSubcommands().get(name);
            if (sub != null) {
                sub.setStopAtPositional(true);
            }
        }
        if (one) {
            return cl;
        }
        // magus server: its own exit statuses and failure handling, as each command has.
        cl.addSubcommand("server", new CommandLine(new ServerCommand(), factory)
                .setExitCodeExceptionMapper(new ExitCodes())
                .setExecutionExceptionHandler(failures)
                .setParameterExceptionHandler(failures));
        return cl;
    }
}
