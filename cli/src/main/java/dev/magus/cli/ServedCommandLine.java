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
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import picocli.CommandLine;

/**
 * The server's parser of a client's words: the command line itself, {@link Main#commandLine}
 * with run's and target's picocli model ({@link RunModel}), so that a forwarded run means what
 * the same words mean locally. What the command line would print without running anything
 * (help, a usage error, a refused value) is answered with its bytes and status; a run is
 * described ({@link RunCommand#served}) and the server runs it.
 */
public final class ServedCommandLine implements RunGrammar {
    /** The commands a client forwards: the others never reach a server. */
    static final List<String> SERVED = List.of(RunCommand.NAME, TargetCommand.NAME);

    /** The server's: the commands parsed here describe runs and build no orchestrator, but their context names them. */
    private final RunServices services;

    /** The parser of a server whose runs share {@code services}. */
    public ServedCommandLine(RunServices services) {
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
        Path cwd = Path.of(c.cwd());
        String home = c.env().getOrDefault("HOME", "");
        Host server = Host.fromSystem();
        CliContext context = new CliContext(() -> server.withEnv(c.env(), home.startsWith("/") ? Path.of(home) : server.home()),
                () -> cwd, LandlockProbe.kernel(), AuditDenialSource::probe, services);
        Outcome outcome = new Outcome(c.stdinTerminal(), c.tty());
        CommandLine.IFactory defaults = CommandLine.defaultFactory();
        CommandLine.IFactory factory = new CommandLine.IFactory() {
            @Override
            public <K> K create(Class<K> type) throws Exception {
                if (!RunCommand.class.isAssignableFrom(type)) {
                    return defaults.create(type);
                }
                RunCommand command = type == TargetCommand.class ? new TargetCommand(context) : new RunCommand(context);
                command.served = outcome;
                return type.cast(command);
            }
        };
        String[] words = args.toArray(String[]::new);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine(factory, words);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int status = cl.execute(words);
        if (outcome.run != null) {
            return new Serve(outcome.run);
        }
        if (outcome.local != null) {
            return new Local(outcome.local);
        }
        return new Answer(status, out.toString().getBytes(StandardCharsets.UTF_8), err.toString().getBytes(StandardCharsets.UTF_8));
    }
}
