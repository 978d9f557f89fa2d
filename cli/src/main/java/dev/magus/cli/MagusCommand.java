package dev.magus.cli;

import picocli.CommandLine.Command;

@Command(name = "magus",
        mixinStandardHelpOptions = true,
        version = "magus-sandbox 0.1.0",
        description = "Runs other people's code confined to a declared filesystem and environment footprint.",
        subcommands = {RunCommand.class, TargetCommand.class, DemoCommand.class, PolicyCommand.class, CheckCommand.class,
                ProbeCommand.class, ExplainCommand.class, JobCommand.class, LeaseCommand.class, InitCommand.class})
final class MagusCommand {
}
