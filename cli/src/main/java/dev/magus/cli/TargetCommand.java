package dev.magus.cli;

import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code magus target NAME [ARGS...]}: {@code magus run --target NAME -- ARGS...}. The target
 * runs in its project's dir, as a target's own process (every spell the workspace's projects
 * bind, plus its own sandbox layer); every option of {@code magus run} applies.
 */
@Command(name = TargetCommand.NAME, description = TargetCommand.DESCRIPTION)
final class TargetCommand extends RunCommand {
    static final String NAME = "target";
    static final String DESCRIPTION = "Runs the target NAME (project/target, or a target name unique in the workspace)"
            + " in its project's dir under the workspace's sandbox, with its own sandbox layer; ARGS are appended to its command.";

    TargetCommand() {
        super();
    }

    TargetCommand(CliContext context) {
        super(context);
    }

    @Override
    CommandSpec model() {
        return RunModel.of(this, NAME, DESCRIPTION);
    }

    @Override
    void checkArguments() {
        if (target.isPresent() || command == null || command.isEmpty()) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), target.isPresent()
                    ? "magus target takes the target as its first argument, not --target"
                    : "Missing required parameter: 'NAME' (the target: project/target, or a target name unique in the workspace)");
        }
    }

    @Override
    Optional<String> targetName() {
        return Optional.of(command.get(0));
    }

    @Override
    List<String> targetArgs() {
        return command.subList(1, command.size());
    }
}
