package dev.magus.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

@Command(name = "magus",
        mixinStandardHelpOptions = true,
        // -h/--help (and -V) on every subcommand too: `magus run --help` prints run's usage and exits 0.
        scope = CommandLine.ScopeType.INHERIT,
        version = "magus-sandbox 0.1.0",
        description = "Runs other people's code confined to a declared filesystem and environment footprint.")
final class MagusCommand {
    /**
     * Its subcommands by name, in the order of its help, added by {@link Main#commandLine}: picocli
     * reflects over every class it is given (and initialises it) when the command line is built,
     * about half of a direct run's own Java time, so a command line that names its subcommand
     * gets only that one. Each name is its class's {@code @Command} name (CliHelpTest checks).
     */
    static final Map<String, Class<?>> SUBCOMMANDS = subcommands(RunCommand.class, "run", TargetCommand.class, "target",
            DemoCommand.class, "demo", PolicyCommand.class, "policy", CheckCommand.class, "check",
            ProbeCommand.class, "probe", ExplainCommand.class, "explain", JobCommand.class, "job",
            LeaseCommand.class, "lease", InitCommand.class, "init", LearnCommand.class, "learn");

    private static Map<String, Class<?>> subcommands(Object... classAndName) {
        Map<String, Class<?>> m = new LinkedHashMap<>();
        for (int i = 0; i < classAndName.length; i += 2) {
            m.put((String) classAndName[i + 1], (Class<?>) classAndName[i]);
        }
        return java.util.Collections.unmodifiableMap(m);
    }
}
