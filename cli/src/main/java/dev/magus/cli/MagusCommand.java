package dev.magus.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

@Command(name = "magus",
        mixinStandardHelpOptions = true,
        // -h/--help (and -V) on every subcommand too: `magus run --help` prints run's usage and exits 0.
        scope = CommandLine.ScopeType.INHERIT,
        version = "magus-sandbox 0.1.0",
        description = "Runs other people's code confined to a declared filesystem and environment footprint.",
        subcommands = {RunCommand.class, TargetCommand.class, DemoCommand.class, PolicyCommand.class, CheckCommand.class,
                ProbeCommand.class, ExplainCommand.class, JobCommand.class, LeaseCommand.class, InitCommand.class,
                LearnCommand.class})
final class MagusCommand {
}
