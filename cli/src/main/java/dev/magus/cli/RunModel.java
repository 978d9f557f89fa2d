package dev.magus.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * picocli's model of {@code magus run} and {@code magus target}, built with picocli's programmatic
 * API instead of from annotations, whose reading (reflection, a proxy class per annotation type)
 * costs a direct run's main thread much; the options, help and parsing are the same picocli's
 * (CliHelpTest, RunModelTest). Values stay in picocli's model until {@link #bind} copies them into
 * the command's fields.
 */
final class RunModel {
    /** picocli's key for the standard help options' mixin ({@code mixinStandardHelpOptions}). */
    static final String HELP_MIXIN = "mixinStandardHelpOptions";

    // Each option as added to the model, read by bind() without a lookup by name (picocli's
    // findOption interpolates every option's names on every call).
    private final OptionSpec op;
    private final OptionSpec target;
    private final OptionSpec sandbox;
    private final OptionSpec env;
    private final OptionSpec unset;
    private final OptionSpec allow;
    private final OptionSpec pass;
    private final OptionSpec events;
    private final OptionSpec allowHost;
    private final OptionSpec stdin;
    private final OptionSpec log;
    private final OptionSpec kernelAudit;
    private final OptionSpec supervise;
    private final OptionSpec ask;
    private final OptionSpec askTimeout;
    private final OptionSpec ui;
    private final OptionSpec verbose;
    private final OptionSpec quiet;
    private final OptionSpec local;
    private final OptionSpec failOnDenial;
    private final PositionalParamSpec command;

    /**
     * The model of {@code command} under {@code name}, its user object {@code command}; the
     * command keeps it ({@code spec}, {@code model}) to read its values from.
     */
    static CommandSpec of(RunCommand command, String name, String description) {
        CommandSpec s = CommandSpec.wrapWithoutInspection(command).name(name);
        s.usageMessage().description(description);
        s.addMixin(HELP_MIXIN, standardHelp());
        command.spec = s;
        command.options = new RunModel(s);
        return s;
    }

    /**
     * Hands {@code from}'s model, and the options it reads, to {@code to}: a command made for one
     * parse of a command line built before it ({@link ServedCommandLine}).
     */
    static void share(RunCommand from, RunCommand to) {
        to.spec = from.spec;
        to.options = from.options;
    }

    private RunModel(CommandSpec s) {
        op = add(s, single("--op", "SPELL", "Runs CMD as a spell op's child: it gets the spells of the project"
                + " holding the current directory, plus SPELL (without --op: every spell the workspace's projects bind)."));
        target = add(s, single("--target", "NAME", "Runs the target NAME (project/target, or a target name unique"
                + " in the workspace) in its project's dir, with its sandbox layer; CMD, if given, is appended to its command."));
        sandbox = add(s, single("--sandbox", "MODE", "off, best-effort or required (never weaker than MAGUS_SANDBOX)"));
        env = add(s, list("--env", "K=V", "Sets a variable for this run only (env\\set)."));
        unset = add(s, list("--unset", "K", "Removes a variable for this run only (env\\unset)."));
        allow = add(s, list("--allow", "PATH[:MODE]", "Grants PATH for this run only: ro (the default),"
                + " rw, rx or rwx; relative to the current directory. Repeatable; shown as layer 'cli' by magus policy."));
        pass = add(s, list("--pass", "VAR", "Passes VAR (or every PREFIX_* variable) through to this"
                + " run's children. Repeatable."));
        events = add(s, single("--events", "FILE", "Also writes every event as NDJSON to FILE ('-' for stdout)."));
        allowHost = add(s, list("--allow-host", "HOST", "Lets this run's network proxy through to HOST"
                + " (or *.domain) as well (network mode proxy)."));
        stdin = add(s, OptionSpec.builder("--stdin").type(boolean.class).negatable(true).defaultValue("true")
                .fallbackValue("true").description("Hands magus's standard input to the child, as env or nice do (the default);"
                        + " --no-stdin gives it /dev/null instead.").build());
        log = add(s, single("--log", "FILE", "Also logs every diagnostic through SLF4J as one"
                + " logfmt line (code= layer= op= subject= source= msg=) to FILE, at the level of its severity."));
        kernelAudit = add(s, flag("Also reads Landlock's audit records for exact kernel-layer denials"
                + " (root or CAP_AUDIT_READ). Switches audit on for the run if it is off, and back off after.", "--kernel-audit"));
        supervise = add(s, flag("Observes the child's calls that name a path or an address and reports each one"
                + " the policy refuses exactly, without privilege and without a word from the child (costs per call;"
                + " see the docs).", "--supervise"));
        ask = add(s, flag("Supervises the run and asks, on the controlling terminal, about each open the policy"
                + " refuses (read, write, create, list) while the child waits: allow once, allow for this run or deny"
                + " (no answer in 60 s denies). An exec is never asked. Needs a terminal.", "--ask"));
        askTimeout = add(s, single("--ask-timeout", "SECONDS", "How long --ask waits for an answer before it denies"
                + " (default 60; 1 to 3600)."));
        ui = add(s, flag("Shows a live view while the run goes: elapsed time, counters per code, the latest"
                + " denials and the YAML that would allow each; plain lines when standard output is not a terminal.", "--ui"));
        verbose = add(s, flag("Also shows debug diagnostics (MGS2008), known harmless"
                + " runtime probes, and the names (never the values) of the variables MGS2003 dropped.", "-v", "--verbose"));
        quiet = add(s, flag("Shows only refusals and denials: no notices, warnings or hints (they stay"
                + " in --events and --log).", "-q", "--quiet"));
        local = add(s, flag("Runs in this process even when a magus server is running"
                + " (a plain run is otherwise forwarded to it).", "--local"));
        failOnDenial = add(s, flag("Exits " + dev.magus.orchestrator.run.DenialStatus.STATUS + " when the child exited 0"
                + " but something it asked for was refused (a read, write, exec, connection or socket; not a known"
                + " harmless runtime probe), so CI fails on it.", "--fail-on-denial"));
        command = PositionalParamSpec.builder().arity("0..*").paramLabel("CMD").type(List.class)
                .auxiliaryTypes(String.class).description("The command and its arguments (after --).").build();
        s.addPositional(command);
    }

    /** Copies what picocli parsed into {@code c}'s fields. */
    void bind(RunCommand c) {
        c.op = Optional.ofNullable(op.getValue());
        c.target = Optional.ofNullable(target.getValue());
        c.sandbox = Optional.ofNullable(sandbox.getValue());
        c.env = strings(env);
        c.unset = strings(unset);
        c.allow = strings(allow);
        c.pass = strings(pass);
        c.events = Optional.ofNullable(events.getValue());
        c.allowHost = strings(allowHost);
        c.stdin = isSet(stdin);
        c.log = Optional.ofNullable(log.getValue());
        c.kernelAudit = isSet(kernelAudit);
        c.supervise = isSet(supervise);
        c.ask = isSet(ask);
        c.askTimeout = Optional.ofNullable(askTimeout.getValue());
        c.ui = isSet(ui);
        c.verbose = isSet(verbose);
        c.quiet = isSet(quiet);
        c.local = isSet(local);
        c.failOnDenial = isSet(failOnDenial);
        c.command = command.getValue();
    }

    private static OptionSpec add(CommandSpec s, OptionSpec option) {
        s.addOption(option);
        return option;
    }

    /**
     * picocli's standard {@code -h, --help} and {@code -V, --version}, as its own mixin declares
     * them (names, keys and texts), without reading that mixin's annotations.
     */
    private static CommandSpec standardHelp() {
        CommandSpec help = CommandSpec.create();
        help.addOption(OptionSpec.builder("${picocli.help.name.0:--h}", "${picocli.help.name.1:---help}").type(boolean.class)
                .usageHelp(true).descriptionKey("mixinStandardHelpOptions.help").description("Show this help message and exit.")
                .build());
        help.addOption(OptionSpec.builder("${picocli.version.name.0:--V}", "${picocli.version.name.1:---version}")
                .type(boolean.class).versionHelp(true).descriptionKey("mixinStandardHelpOptions.version")
                .description("Print version information and exit.").build());
        return help;
    }

    private static OptionSpec single(String name, String label, String description) {
        return OptionSpec.builder(name).type(String.class).paramLabel(label).description(description).build();
    }

    private static OptionSpec list(String name, String label, String description) {
        return OptionSpec.builder(name).type(List.class).auxiliaryTypes(String.class).paramLabel(label)
                .description(description).build();
    }

    private static OptionSpec flag(String description, String... names) {
        return OptionSpec.builder(names).type(boolean.class).description(description).build();
    }

    private static List<String> strings(OptionSpec option) {
        List<String> v = option.getValue();
        return v == null ? new ArrayList<>() : v;
    }

    private static boolean isSet(OptionSpec option) {
        return Boolean.TRUE.equals(option.getValue());
    }
}
