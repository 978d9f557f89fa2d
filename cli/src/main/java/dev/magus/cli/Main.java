package dev.magus.cli;

import dev.magus.events.RawBytes;
import dev.magus.landlock.launch.Launcher;
import dev.magus.orchestrator.run.RunServices;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Map;
import java.util.logging.LogManager;
import picocli.CommandLine;

/** Entry point of {@code bin/magus}. */
public final class Main {
    private Main() {
    }

    public static void main(String[] jvmArgs) {
        // First: from here no SIGINT, SIGTERM or SIGHUP is lost (see Signals).
        Signals.install();
        // The bytes the caller wrote, where the JVM could not decode them (an argument or --env value that is not UTF-8).
        String[] args = RawBytes.ofThisProcess(jvmArgs);
        lookupsNotMade();
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
        int status = execute(args);
        ClassArchives.markIfThin();
        System.exit(status);
    }

    /**
     * Two libraries' look-ups over the whole class path that magus has no use for, each of which,
     * the first time anything in the process looks up a name the class path does not hold, opens
     * and indexes every jar of it, on the main
     * thread, before the run's first stage: picocli's probe for Groovy ({@code groovy.lang.Closure},
     * for closures in annotations, which magus never writes) and SLF4J's search for its providers
     * (a {@code ServiceLoader}; cli's slf4j-simple is the only one on the class path, so it is named).
     * SLF4J's own line saying which provider was named is an info line: its internal reports keep
     * warnings and errors. Set only where the caller has not: a {@code -D} on the command line wins.
     */
    static void lookupsNotMade() {
        setIfAbsent("picocli.disable.closures", "true");
        setIfAbsent("slf4j.provider", "org.slf4j.simple.SimpleServiceProvider");
        setIfAbsent("slf4j.internal.verbosity", "WARN");
    }

    private static void setIfAbsent(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    private static void prepareLauncher() {
        // JUL first, which JNA's loggers need: starting it looks the class path up for a
        // System.LoggerFinder, which opens and indexes every jar of it, once per process.
        // Done here at once, the main thread finds them open when it looks a name up (SLF4J's
        // simplelogger.properties, the ServiceLoaders) instead of opening some itself.
        // Then the JDK's security providers (its java.security file read and parsed, the Sun
        // provider's table of services): the run's id (a SecureRandom, Orchestrator) on the main
        // thread and the control-file audit's SHA-256 on the run's would otherwise each wait for
        // them on the run's path. Made here they are ready by then; a
        // failure is the same failure there, where it is reported.
        try {
            LogManager.getLogManager();
            new SecureRandom().nextBytes(new byte[1]);
            MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException | RuntimeException e) {
            // Reported, if it happens again, by the code that needs them.
        }
        try {
            Launcher.get();
        } catch (RuntimeException | LinkageError e) {
            // Not made: the run's own spawn makes it again and reports why, as without this.
        }
    }

    /**
     * Runs the command line and returns its exit status (for tests and for main). The process's
     * {@link RunServices} are made here, shared by every orchestrator the command builds, and
     * closed once it has ended.
     */
    public static int execute(String... args) {
        try (RunServices services = new RunServices()) {
            return commandLine(new Commands(CliContext.system(services)), args).execute(args);
        }
    }

    /** Makes each command with {@code context} when it takes one, any other as picocli would. */
    private record Commands(CliContext context) implements CommandLine.IFactory {
        @Override
        public <K> K create(Class<K> type) throws Exception {
            java.lang.reflect.Constructor<K> withContext;
            try {
                withContext = type.getDeclaredConstructor(CliContext.class);
            } catch (NoSuchMethodException e) {
                return CommandLine.defaultFactory().create(type);
            }
            return withContext.newInstance(context);
        }
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
