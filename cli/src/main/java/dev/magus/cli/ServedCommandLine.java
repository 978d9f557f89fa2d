package dev.magus.cli;

import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.denials.audit.AuditDenialSource;
import dev.magus.orchestrator.run.Host;
import dev.magus.orchestrator.run.RunServices;
import dev.magus.server.RunGrammar;
import dev.magus.server.ServedRun;
import dev.magus.server.protocol.Frame;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedDeque;
import picocli.CommandLine;

/**
 * The server's parser of a client's words: the command line itself, {@link Main#commandLine}
 * with run's and target's picocli model ({@link RunModel}), so that a forwarded run means what
 * the same words mean locally. What the command line would print without running anything
 * (help, a usage error, a refused value) is answered with its bytes and status; a run is
 * described ({@link RunCommand#served}) and the server runs it.
 *
 * <p>Each served command's command line is built once and parsed again for every run: picocli
 * resets every option and positional of a command line to its initial value before each parse,
 * so a parse means what it would on a new one; after each run it parses the bare name again,
 * so it holds none of the run's values (an {@code --env} secret) while it waits. Only the
 * command object is new per run (a {@link RunCommand} with the run's context, given the model
 * it reads). A command line parses one run at a time: concurrent runs take another, made when
 * none is free.
 */
public final class ServedCommandLine implements RunGrammar {
    /** The commands a client forwards: the others never reach a server. */
    static final List<String> SERVED = List.of(RunCommand.NAME, TargetCommand.NAME);

    /** The server's: the commands parsed here describe runs and build no orchestrator, but their context names them. */
    private final RunServices services;
    /** The server's host, whose environment and home each run's context replaces with its client's. */
    private final Host server;
    /** The free command lines of each served command, by its name. */
    private final Map<String, ConcurrentLinkedDeque<Parser>> free = Map.of(RunCommand.NAME, new ConcurrentLinkedDeque<>(),
            TargetCommand.NAME, new ConcurrentLinkedDeque<>());

    /** The parser of a server whose runs share {@code services}, on this process's host. */
    public ServedCommandLine(RunServices services) {
        this(Host.fromSystem(), services);
    }

    /** The parser of a server on {@code server}'s host whose runs share {@code services}. */
    public ServedCommandLine(Host server, RunServices services) {
        this.server = Objects.requireNonNull(server, "server");
        this.services = Objects.requireNonNull(services, "services");
    }

    /** What one command makes: a run, or the client's own. */
    static final class Outcome {
        private ServedRun run;
        private String local;
        /** The client's standard input is a terminal. */
        final boolean stdinTerminal;
        /** The client has a controlling terminal, where a forwarded {@code --ask} asks. */
        final boolean tty;

        Outcome(boolean stdinTerminal, boolean tty) {
            this.stdinTerminal = stdinTerminal;
            this.tty = tty;
        }

        void run(ServedRun r) {
            run = r;
        }

        void local(String message) {
            local = message;
        }
    }

    @Override
    public Parsed parse(Frame.Command c) {
        List<String> args = c.args();
        if (args.isEmpty() || !SERVED.contains(args.get(0))) {
            return new Local("");
        }
        String name = args.get(0);
        Path cwd = Path.of(c.cwd());
        String home = c.env().getOrDefault("HOME", "");
        CliContext context = new CliContext(() -> server.withEnv(c.env(), home.startsWith("/") ? Path.of(home) : server.home()),
                () -> cwd, LandlockProbe.kernel(), AuditDenialSource::probe, services);
        Outcome outcome = new Outcome(c.stdinTerminal(), c.tty());
        RunCommand command = name.equals(TargetCommand.NAME) ? new TargetCommand(context) : new RunCommand(context);
        command.served = outcome;
        ConcurrentLinkedDeque<Parser> lines = free.get(name);
        Parser parser = lines.poll();
        if (parser == null) {
            parser = new Parser(name, services);
        }
        String[] words = args.toArray(String[]::new);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = parser.execute(command, words, out, err);
        lines.push(parser);
        if (outcome.run != null) {
            return new Serve(outcome.run);
        }
        if (outcome.local != null) {
            return new Local(outcome.local);
        }
        return new Answer(status, out.toString().getBytes(StandardCharsets.UTF_8), err.toString().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The command line of one served command ({@link Main#commandLine} with only that command),
     * whose command object is a {@link Slot}: each parse hands it the run's own command.
     */
    private static final class Parser {
        /** The line's writer between runs. */
        private final PrintWriter nowhere = new PrintWriter(Writer.nullWriter());
        private final String name;
        private final Slot slot;
        private final CommandLine line;

        Parser(String name, RunServices services) {
            this.name = name;
            Slot made = name.equals(TargetCommand.NAME) ? new Slot(TargetCommand.NAME, TargetCommand.DESCRIPTION, services)
                    : new Slot(RunCommand.NAME, RunCommand.DESCRIPTION, services);
            CommandLine.IFactory defaults = CommandLine.defaultFactory();
            line = Main.commandLine(new CommandLine.IFactory() {
                @Override
                @SuppressWarnings("unchecked") // the slot stands for run's or target's command: Main reads it as a RunCommand
                public <K> K create(Class<K> type) throws Exception {
                    return RunCommand.class.isAssignableFrom(type) ? (K) made : defaults.create(type);
                }
            }, name);
            slot = made;
        }

        /**
         * Parses {@code words} and runs {@code command} on them, as the command line would; its
         * exit status. Then forgets them: the pooled line must not keep one run's values (an
         * {@code --env} secret) until the next run parses.
         */
        int execute(RunCommand command, String[] words, StringWriter out, StringWriter err) {
            RunModel.share(slot, command);
            slot.current = command;
            try {
                line.setOut(new PrintWriter(out, true));
                line.setErr(new PrintWriter(err, true));
                return line.execute(words);
            } finally {
                slot.current = null;
                forget();
            }
        }

        /**
         * Parses the bare command name, which resets every option, positional and parse result
         * to its initial value as any parse does, and drops the run's output writers.
         */
        private void forget() {
            line.setOut(nowhere);
            line.setErr(nowhere);
            try {
                line.parseArgs(name);
            } catch (CommandLine.ParameterException e) {
                // nothing is required: the bare name parses
            }
        }
    }

    /**
     * The command object of a reused command line: run's or target's model under its name, and
     * each call made on the run's own command, which reads the same model.
     */
    private static final class Slot extends RunCommand {
        private final String name;
        private final String description;
        private RunCommand current;

        Slot(String name, String description, RunServices services) {
            super(new CliContext(Slot::none, Slot::none, LandlockProbe.kernel(), Slot::none, services));
            this.name = name;
            this.description = description;
        }

        private static <T> T none() {
            throw new IllegalStateException("a served command line's slot has no context: its run's command has");
        }

        @Override
        picocli.CommandLine.Model.CommandSpec model() {
            return RunModel.of(this, name, description);
        }

        @Override
        public Integer call() throws java.io.IOException {
            return current.call();
        }
    }
}
