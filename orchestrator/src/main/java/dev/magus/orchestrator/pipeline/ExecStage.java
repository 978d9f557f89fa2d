package dev.magus.orchestrator.pipeline;

import dev.magus.events.Diagnostic;
import dev.magus.policy.LookPath;
import dev.magus.policy.PolicyOrOff;
import dev.magus.policy.Verdict;
import dev.magus.policy.fs.Access;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The binding layer's exec check, before anything is spawned: the command is looked up the
 * way the child's PATH would find it, and the file found is checked against the exec rules.
 */
public final class ExecStage {
    /** What the command resolves to. */
    public sealed interface Target {
        /** Allowed: spawn this file. */
        record Runnable(Path executable) implements Target {
        }

        /** Not started, as a shell would say it: 127 not found, 126 not runnable. */
        record Unrunnable(int status, String message) implements Target {
        }

        /** The binding layer refuses the exec (MGS2007): 126. */
        record Denied(Diagnostic diagnostic) implements Target {
        }
    }

    private ExecStage() {
    }

    public static Target resolve(String command, String path, Path cwd, PolicyOrOff policy) {
        Optional<Path> exe = LookPath.find(command, path, cwd);
        if (exe.isEmpty()) {
            Path named = cwd.resolve(command);
            if (command.contains("/") && Files.exists(named)) {
                return new Target.Unrunnable(126, command + ": " + (Files.isDirectory(named) ? "is a directory" : "not executable"));
            }
            return new Target.Unrunnable(127, command + ": command not found");
        }
        if (policy.check(Access.EXEC, exe.get(), cwd) instanceof Verdict.Denied denied) {
            return new Target.Denied(denied.diagnostic());
        }
        return new Target.Runnable(exe.get());
    }
}
