package dev.magus.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;

@Command(name = MagusCommand.NAME,
        mixinStandardHelpOptions = true,
        // -h/--help (and -V) on every subcommand too: `magus run --help` prints run's usage and exits 0.
        scope = CommandLine.ScopeType.INHERIT,
        version = MagusCommand.VERSION,
        description = MagusCommand.DESCRIPTION)
final class MagusCommand {
    static final String NAME = "magus";
    static final String VERSION = "magus-sandbox 0.1.0";
    static final String DESCRIPTION = "Runs other people's code confined to a declared filesystem and environment footprint.";

    /**
     * The top command for a command line that holds only {@code run} or {@code target}: this
     * annotation's name, version, description and scope, built without reading it (RunModel). It
     * carries no help options of its own: the standard ones are the subcommand's, as they would
     * be inherited, and picocli would mix its annotated ones into every subcommand of a top
     * command that had them. Only ever parsed with the subcommand's name first.
     */
    static CommandSpec lean() {
        CommandSpec s = CommandSpec.create().name(NAME).version(VERSION).scopeType(CommandLine.ScopeType.INHERIT);
        s.usageMessage().description(DESCRIPTION);
        return s;
    }
    /**
     * Its subcommands by name, in the order of its help, added by {@link Main#commandLine}: picocli
     * reflects over every class it is given (and initialises it) when the command line is built,
     * about half of a direct run's own Java time, so a command line that names its subcommand
     * gets only that one. Each name is its class's {@code @Command} name (CliHelpTest checks).
     */
    static final Map<String, Class<?>> SUBCOMMANDS = subcommands(RunCommand.class, "run", TargetCommand.class, "target",
            DemoCommand.class, "demo", PolicyCommand.class, "policy", CheckCommand.class, "check",
            ProbeCommand.class, "probe", ExplainCommand.class, "explain", JobCommand.class, "job",
            LeaseCommand.class, "lease", InitCommand.class, "init", LearnCommand.class, "learn", TrustCommand.class, "trust",
            QuarantineCommand.class, "quarantine", CompletionCommand.class, "completion");

    private static Map<String, Class<?>> subcommands(Object... classAndName) {
        Map<String, Class<?>> m = new LinkedHashMap<>();
        for (int i = 0; i < classAndName.length; i += 2) {
            m.put((String) classAndName[i + 1], (Class<?>) classAndName[i]);
        }
        return java.util.Collections.unmodifiableMap(m);
    }
}
