package dev.magus.orchestrator.pipeline;

import dev.magus.env.overlay.Overlay;
import dev.magus.env.proc.ProcSocket;
import dev.magus.events.Diagnostic;
import dev.magus.orchestrator.run.Host;
import dev.magus.orchestrator.run.RunRequest;
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

    /**
     * The stage: the command looked up the way the child's PATH would find it. Not found is a
     * refusal said as a shell would (127; 126 not runnable), a file the exec rules deny is
     * MGS2007 (126).
     */
    static RunPlan aim(RunPlan plan, RunRequest request, Host host) {
        Overlay overlay = EnvStage.overlay(request);
        RunConfig config = plan.config();
        Target target = resolve(config.argv().get(0), EnvStage.lookupPath(overlay, host.env()), config.workingDir(),
                plan.policy());
        if (target instanceof Target.Unrunnable u) {
            throw new Refusal.Said("magus: " + u.message(), u.status());
        }
        if (target instanceof Target.Denied denied) {
            throw new Refusal.Diagnosed(denied.diagnostic(), 126);
        }
        Path exe = ((Target.Runnable) target).executable();
        boolean recursive = host.launcher().map(l -> ProcSocket.isRecursiveMagus(exe, l)).orElse(false);
        return plan.aimed(overlay, exe, recursive);
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
