package dev.magus.cli;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Echo;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.RunEvent;
import dev.magus.events.SandboxException;
import dev.magus.landlock.denials.audit.AuditDenialSource;
import dev.magus.landlock.denials.audit.AuditOptions;
import dev.magus.events.IoFailures;
import dev.magus.orchestrator.Orchestrator;
import dev.magus.cli.ask.TerminalApprover;
import dev.magus.cli.ui.LiveView;
import dev.magus.orchestrator.run.Passthrough;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.RunResult;
import dev.magus.orchestrator.run.Stdin;
import dev.magus.orchestrator.run.Submission;
import dev.magus.policy.decl.CommandLineDecl;
import dev.magus.events.Mode;
import dev.magus.telemetry.log.DiagnosticLogSink;
import dev.magus.telemetry.ndjson.NdjsonSink;
import dev.magus.server.client.StandardInput;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;

@Command(name = RunCommand.NAME, description = RunCommand.DESCRIPTION)
class RunCommand implements Callable<Integer> {
    static final String NAME = "run";
    static final String DESCRIPTION = "Runs CMD under the workspace's sandbox; each boundary it hits is shown as it happens.";

    // The options' values, taken from picocli's model by bind() before anything reads them.
    Optional<String> op = Optional.empty();
    Optional<String> target = Optional.empty();
    Optional<String> sandbox = Optional.empty();
    List<String> env = new ArrayList<>();
    List<String> unset = new ArrayList<>();
    List<String> allow = new ArrayList<>();
    List<String> pass = new ArrayList<>();
    Optional<String> events = Optional.empty();
    List<String> allowHost = new ArrayList<>();
    boolean stdin = true;
    Optional<String> log = Optional.empty();
    boolean kernelAudit;
    boolean supervise;
    boolean ask;
    Optional<String> askTimeout = Optional.empty();
    /** How long {@code --ask} waits for an answer ({@code --ask-timeout}). */
    private java.time.Duration answerWithin = dev.magus.landlock.supervise.Approval.DEFAULT_TIMEOUT;
    boolean ui;
    boolean verbose;
    boolean quiet;
    boolean local;
    boolean failOnDenial;
    List<String> command;

    CommandSpec spec;
    /** The options of {@link #spec}, set with it by {@link RunModel#of}. */
    RunModel options;

    private final CliContext context;
    /** Where {@code --ask} asks: the controlling terminal (a test names another). */
    Path tty = TerminalApprover.TTY;
    private TerminalApprover approver;
    /** Set when the server parses a client's words ({@link ServedCommandLine}): the run is described, never run here. */
    ServedCommandLine.Outcome served;

    RunCommand() {
        this(CliContext.system());
    }

    RunCommand(CliContext context) {
        this.context = context;
    }

    CliContext context() {
        return context;
    }

    /** picocli's model of this command ({@link RunModel}), which {@link #call} reads its options from. */
    /**
     * A run that no client forwarded (no native client, no socket there): in a login session the
     * user's server starts in the background, as the clients start it ({@code AutoStart}); this
     * run goes on here.
     */
    private void startServerWhenAbsent(PrintWriter err) {
        java.util.Map<String, String> env = context.host().get().env();
        long uid = context.host().get().uid();
        if (dev.magus.server.lifecycle.AutoStart.refusal(env, uid).isPresent()) {
            return;
        }
        dev.magus.server.client.ServerLocation where = dev.magus.server.client.ServerLocation.find(env, uid);
        if (!Files.exists(where.socket(), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            dev.magus.server.lifecycle.AutoStart.nobodyThere(where.dir(), env, uid, err);
        }
    }

    CommandSpec model() {
        return RunModel.of(this, NAME, DESCRIPTION);
    }

    /**
     * The child's bytes pass through {@link System#out} and {@link System#err} unchanged;
     * magus's own lines go to the command line's error writer (the same stream, flushed per
     * line), which a test captures.
     */
    @Override
    public Integer call() throws IOException {
        options.bind(this);
        checkArguments();
        if (served != null) {
            answerWithin = askTimeout(spec.commandLine(), askTimeout, ask);
            if (ask && !served.tty) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--ask needs a terminal to ask on: "
                        + tty + " cannot be opened (no controlling terminal); run it from one, or give the Java API an approver");
            }
            return serve();
        }
        // From here a signal is kept for the run instead of ending magus (see Signals).
        int signalled = Signals.hold();
        if (signalled != 0) {
            return signalled;
        }
        PrintStream out = System.out;
        PrintWriter err = spec.commandLine().getErr();
        answerWithin = askTimeout(spec.commandLine(), askTimeout, ask);
        if (ask) {
            approver = TerminalApprover.open(tty).orElseThrow(() -> new picocli.CommandLine.ParameterException(
                    spec.commandLine(), "--ask needs a terminal to ask on: " + tty + " cannot be opened"
                            + " (no controlling terminal); run it from one, or give the Java API an approver"));
        }
        RunRequest request;
        Optional<Path> eventsFile;
        Optional<Path> logFile;
        try {
            Path cwd = context.cwd().get();
            request = request(cwd);
            eventsFile = events.filter(e -> !e.equals("-")).map(e -> cwd.resolve(Flags.path(e, "--events")));
            logFile = log.map(l -> cwd.resolve(Flags.path(l, "--log")));
            logFile.ifPresent(RunCommand::checkLogFile);
            PrintedLines.INSTANCE.granted(allow, cwd, context.host().get().home(), quiet).forEach(err::println);
        } catch (SandboxException e) {
            err.println(HumanLines.line(e.diagnostic()));
            return ExitCodes.REFUSED;
        }
        if (!local) {
            startServerWhenAbsent(err);
        }
        if (logFile.isPresent()) {
            // slf4j-simple reads its settings once, when the first logger is made: before
            // anything of Reactor's (which logs through SLF4J too) is loaded.
            System.setProperty("org.slf4j.simpleLogger.logFile", logFile.get().toAbsolutePath().toString());
            System.setProperty("org.slf4j.simpleLogger.log." + DiagnosticLogSink.LOGGER_NAME, "debug");
            System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
            System.setProperty("org.slf4j.simpleLogger.dateTimeFormat", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX");
        }
        Orchestrator.Builder builder = Orchestrator.builder(context.host().get()).services(context.services());
        OutputStream ndjson = null;
        if (events.isPresent()) {
            try {
                ndjson = eventsFile.isEmpty() ? out : Files.newOutputStream(eventsFile.get());
            } catch (IOException e) {
                err.println(HumanLines.line(Flags.unusable("--events", eventsFile.get(), "cannot be written", e)));
                return ExitCodes.REFUSED;
            }
            builder.sink(new GuardedSink(new NdjsonSink(ndjson), events.get(), err));
        }
        if (logFile.isPresent()) {
            builder.sink(new DiagnosticLogSink());
        }
        AuditDenialSource audit = null;
        if (kernelAudit) {
            try {
                audit = AuditDenialSource.open(new AuditOptions(true));
                builder.audit(audit);
            } catch (SandboxException e) {
                err.println(HumanLines.line(e.diagnostic()));
                return ExitCodes.REFUSED;
            }
        }
        boolean ndjsonOnStdout = ndjson == out;
        Optional<LiveView> view = ui && !ndjsonOnStdout
                ? LiveView.open(request.argv().isEmpty() ? List.of(request.target().orElse("")) : request.argv(), HumanLines::line, d -> HumanLines.shown(d, verbose, quiet))
                : Optional.empty();
        // The child's bytes go through unchanged (binary output, partial lines) unless the live
        // view draws them or NDJSON owns stdout; diagnostics are printed from the events.
        boolean raw = view.isEmpty() && !ndjsonOnStdout;
        Run run = builder.build().submit(
                Submission.of(request).withPassthrough(raw ? Passthrough.of(out, System.err) : Passthrough.none()));
        Signals.forward(run);
        // Taken now, while the run goes: the journal keeps only a window for later subscribers.
        java.util.concurrent.CompletableFuture<RunEvent.Started> started = run.events().ofType(RunEvent.Started.class)
                .next().toFuture();
        view.ifPresentOrElse(v -> v.follow(run.events()), () -> run.events().subscribe(e -> show(e, err)));
        RunResult result = run.result().block();
        if (started.getNow(null) != null) {
            ClassArchives.childStarted();
        }
        view.ifPresent(LiveView::close);
        if (view.isPresent()) {
            // Said after the view, which owns the terminal while it runs.
            Optional.ofNullable(started.getNow(null)).flatMap(this::unconfinedNotice).ifPresent(err::println);
        }
        out.flush();
        err.flush();
        if (audit != null) {
            audit.close();
        }
        if (approver != null) {
            approver.close();
        }
        if (ndjson != null && !ndjsonOnStdout) {
            ndjson.close();
        }
        return result == null ? ExitCodes.REFUSED : result.status();
    }

    /**
     * The run a client's words ask the server for, as this command would run it: refused values
     * are refused here with the same line and status, and a run only this process can serve
     * (an events file, a log, the live view, the kernel's audit records, {@code --local}) is the
     * client's own. A run with {@code --supervise} is the server's, supervised there; one with
     * {@code --ask} too: it asks the client, which asks on its terminal.
     */
    private Integer serve() {
        PrintWriter err = spec.commandLine().getErr();
        Optional<String> only = local ? Optional.of("--local") : events.isPresent() ? Optional.of("--events")
                : log.isPresent() ? Optional.of("--log") : ui ? Optional.of("--ui") : kernelAudit ? Optional.of("--kernel-audit")
                : Optional.empty();
        if (only.isPresent()) {
            served.local(verbose && !local ? "magus: " + only.get() + " is served by this process only: running here" : "");
            return 0;
        }
        RunRequest request;
        Path cwd = context.cwd().get();
        try {
            request = request(cwd);
        } catch (SandboxException e) {
            err.println(HumanLines.line(e.diagnostic()));
            return ExitCodes.REFUSED;
        }
        served.run(new dev.magus.server.ServedRun(request.argv(), cwd.toString(), context.host().get().env(),
                request.envSet(), new ArrayList<>(request.envUnset()), sandbox, stdin && !(ask && served.stdinTerminal),
                request.grants().allow(), request.grants().pass(), request.op(), request.target(), request.allowHosts(),
                verbose, quiet, failOnDenial, supervise, ask ? Optional.of(answerWithin) : Optional.empty()));
        return 0;
    }

    /**
     * Once per run, on stderr: a run in mode off is not confined at all, which a person who
     * expected magus to sandbox it must not have to guess.
     */
    Optional<String> unconfinedNotice(RunEvent.Started s) {
        return PrintedLines.unconfined(s.mode(), sandbox, context.cwd().get(), command, quiet);
    }

    RunRequest request(Path cwd) {
        List<String> args = command == null ? List.of() : command;
        Optional<String> targetName = targetName();
        RunRequest.Builder b = RunRequest.builder(cwd, targetName.isPresent() ? targetArgs() : args);
        targetName.ifPresent(b::target);
        op.ifPresent(b::op);
        b.failOnDenial(failOnDenial);
        sandbox.ifPresent(s -> b.sandbox(Mode.parse(s, "--sandbox")));
        for (String kv : env) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new SandboxException(Diagnostic.of(Code.MGS2004, "--env takes NAME=VALUE, not " + Echo.quoted(kv),
                        "", Operation.NONE, Layer.POLICY, "--env"));
            }
            b.set(kv.substring(0, eq), kv.substring(eq + 1));
        }
        unset.forEach(b::unset);
        // Checked here too, so a bad value is refused before anything else happens (125).
        CommandLineDecl.parse(allow, pass, cwd);
        allow.forEach(b::allow);
        pass.forEach(b::pass);
        allowHost.forEach(b::allowHost);
        b.supervise(supervise);
        if (approver != null) {
            b.approver(approver, answerWithin);
        }
        // A closed standard input is the child's /dev/null, never the JVM's class image (StandardInput);
        // a served run's is the client's, which sends it.
        // Under --ask the terminal's lines are the answers: a child reading the same terminal would take them.
        boolean stdinTerminal = served != null ? served.stdinTerminal : TerminalApprover.isTerminal(0);
        if (stdin && (served != null || !StandardInput.closedAtStart()) && !(ask && stdinTerminal)) {
            b.stdin(new Stdin.Inherit());
        }
        return b.build();
    }

    /** A usage error (exit 125, no code) when there is nothing to run. */
    void checkArguments() {
        if (target.isEmpty() && (command == null || command.isEmpty())) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                    "Missing required parameter: 'CMD' (the command after --, or --target NAME)");
        }
    }

    /** The target to run, if any: {@code --target}. */
    Optional<String> targetName() {
        return target;
    }

    /** What is appended to the target's command. */
    List<String> targetArgs() {
        return command == null ? List.of() : command;
    }

    /**
     * Without the live view, only diagnostics are printed from the events: the child's output
     * either went through the pass-through or belongs to the NDJSON on stdout.
     */
    private void show(RunEvent e, PrintWriter err) {
        if (e instanceof RunEvent.Diag d) {
            PrintedLines.INSTANCE.diagnostic(d.diagnostic(), verbose, quiet).ifPresent(err::println);
        } else if (e instanceof RunEvent.Started s) {
            unconfinedNotice(s).ifPresent(err::println);
        }
    }

    /**
     * slf4j-simple falls back to stderr, with a stack trace, when it cannot open its file; so
     * the file is tried first, and a refusal names {@code --log}.
     */
    private static void checkLogFile(Path file) {
        try (OutputStream o = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            // opened: slf4j-simple will open it again the same way
        } catch (IOException e) {
            throw new SandboxException(Flags.unusable("--log", file, "cannot be written", e));
        }
    }

    /**
     * A sink whose failure (a full disk under the events file) is said once, as MGS2004 naming
     * the flag, and then stops: the run goes on and keeps its status, and no stack trace of
     * Reactor's dropped-error hook reaches the terminal.
     */
    static final class GuardedSink implements Consumer<RunEvent> {
        private final Consumer<RunEvent> sink;
        private final String file;
        private final PrintWriter err;
        private volatile boolean failed;

        GuardedSink(Consumer<RunEvent> sink, String file, PrintWriter err) {
            this.sink = sink;
            this.file = file;
            this.err = err;
        }

        @Override
        public void accept(RunEvent e) {
            if (failed) {
                return;
            }
            try {
                sink.accept(e);
            } catch (RuntimeException x) {
                failed = true;
                String reason = x.getCause() instanceof IOException io ? IoFailures.reason(io) : String.valueOf(x.getMessage());
                err.println(HumanLines.line(Diagnostic.of(Code.MGS2004, "cannot write events to " + Echo.quoted(file) + ": "
                        + reason + "; no further events are written there (the run goes on)",
                        "", Operation.NONE, Layer.POLICY, "--events")));
            }
        }
    }

    /**
     * {@code --ask-timeout SECONDS}: whole seconds from 1 to 3600; only with {@code --ask}. A usage
     * error (exit 125) otherwise, never a silent default.
     */
    static java.time.Duration askTimeout(picocli.CommandLine line, Optional<String> value, boolean ask) {
        if (value.isEmpty()) {
            return dev.magus.landlock.supervise.Approval.DEFAULT_TIMEOUT;
        }
        if (!ask) {
            throw new picocli.CommandLine.ParameterException(line, "--ask-timeout is for --ask: nothing is asked without it");
        }
        String v = value.get();
        if (v.matches("[0-9]{1,4}")) {
            int seconds = Integer.parseInt(v);
            if (seconds >= 1 && seconds <= 3600) {
                return java.time.Duration.ofSeconds(seconds);
            }
        }
        throw new picocli.CommandLine.ParameterException(line, "--ask-timeout takes whole seconds from 1 to 3600, not "
                + dev.magus.events.Echo.quoted(v));
    }
}
