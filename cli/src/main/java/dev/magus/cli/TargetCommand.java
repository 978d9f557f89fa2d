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

    /** With no NAME: the workspace's targets, one a line ({@code ref: command}), and 0. */
    @Override
    public Integer call() throws java.io.IOException {
        options.bind(this);
        if (target.isEmpty() && (command == null || command.isEmpty())) {
            return list(spec.commandLine().getOut(), spec.commandLine().getErr());
        }
        return super.call();
    }

    private int list(java.io.PrintWriter out, java.io.PrintWriter err) {
        java.util.List<dev.magus.workspace.project.Target> targets;
        try {
            java.nio.file.Path cwd = context().cwd().get();
            var host = context().host().get();
            targets = dev.magus.orchestrator.pipeline.ConfigStage.resolve("inspect",
                    dev.magus.orchestrator.run.RunRequest.builder(cwd, "magus").build(), host.env(), host.home())
                    .projects().all().stream().flatMap(p -> p.targets().stream()).toList();
        } catch (dev.magus.events.SandboxException e) {
            err.println(HumanLines.line(e.diagnostic()));
            return ExitCodes.REFUSED;
        }
        if (targets.isEmpty()) {
            err.println("magus target: magus.yaml declares no targets (a project's targets: NAME: {run: [...]})");
            return 0;
        }
        for (dev.magus.workspace.project.Target t : targets) {
            out.println(t.ref() + ": " + String.join(" ", t.run()) + (t.writes() ? "  (writes)" : ""));
        }
        out.flush();
        return 0;
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
