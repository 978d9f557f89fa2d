package dev.magus.landlock.launch;

import dev.magus.events.DetailKey;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import dev.magus.landlock.abi.Decision;
import dev.magus.landlock.sys.Errno;
import dev.magus.events.Mode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What a launch that did not start its child means, for the caller: a command that could not
 * run (127/126, MGS2007 when the kernel layer denied the exec) or a child that could not be
 * confined (MGS2012/MGS2004). Asked only after a launch failed, off the path of every spawn that
 * works, so it may look at the filesystem (magus itself is never confined).
 */
final class SpawnFailures {
    private SpawnFailures() {
    }

    /**
     * The launch sequence did not get as far as {@code posix_spawn}: it crashed, could not take
     * its CPU mask back, or could not confine itself.
     */
    static RuntimeException launchFailed(Mode mode, SpawnRequest request, LaunchSequence seq) {
        if (seq.crash != null) {
            return new IllegalStateException("launch thread failed", seq.crash);
        }
        if (seq.failedStep == LaunchSequence.STEP_AFFINITY) {
            // Not a confinement failure: the child would only have been started on one CPU.
            return new IllegalStateException("the launch thread could not take its CPU mask back (sched_setaffinity: "
                    + Errno.describe(seq.errno) + "); " + request.executable() + " was not started");
        }
        return confinementFailed(mode, request, seq);
    }

    /** A child never starts with less confinement than its decision promised. */
    private static SandboxException confinementFailed(Mode mode, SpawnRequest request, LaunchSequence seq) {
        String what = LaunchSequence.stepName(seq.failedStep) + " failed: " + Errno.describe(seq.errno);
        String hint = seq.errno == Errno.E2BIG ? " (too many nested Landlock domains)" : "";
        Code code = mode == Mode.REQUIRED ? Code.MGS2012 : Code.MGS2004;
        return new SandboxException(Diagnostic.of(code,
                        "cannot confine the child: " + what + hint + "; it was not started",
                        request.executable().toString(), Operation.EXEC, Layer.KERNEL, Decision.SOURCE)
                .withDetail(DetailKey.STEP, LaunchSequence.stepName(seq.failedStep))
                .withDetail(DetailKey.ERRNO, Errno.name(seq.errno)));
    }

    /**
     * {@code posix_spawn} failed with {@code errno}: what the shell would say and exit with.
     *
     * @param viaShell whether it was the retry with {@code /bin/sh} for a script without {@code #!}
     * @param confined whether a Landlock domain was in force, so that EACCES may be the kernel layer's
     */
    static Spawn.NotStarted notStarted(SpawnRequest request, int errno, boolean viaShell, boolean confined) {
        // posix_spawn reports a failed chdir of the child as ENOENT too.
        if (!Files.isDirectory(request.workingDirectory())) {
            return new Spawn.NotStarted(Spawn.Reason.NO_WORKING_DIRECTORY, 127, Errno.ENOENT,
                    "working directory does not exist: " + request.workingDirectory(), Optional.empty());
        }
        Path exe = viaShell ? NativeArgs.SHELL : request.executable();
        String suffix = viaShell ? " (running " + request.executable() + ", a script without #!)" : "";
        if (errno == Errno.ENOENT || errno == Errno.ENOTDIR) {
            return new Spawn.NotStarted(Spawn.Reason.NOT_FOUND, 127, errno,
                    "command not found: " + exe + suffix, Optional.empty());
        }
        if (errno == Errno.EACCES && confined && Files.isRegularFile(exe) && Files.isExecutable(exe)) {
            // A script's interpreter is exec'd too; when it is the one outside the rules, name it.
            Optional<Path> interpreter = Shebang.interpreter(exe);
            String what = interpreter.map(i -> exe + " or its interpreter " + i + " is").orElse(exe + " is");
            Diagnostic d = Diagnostic.of(Code.MGS2007,
                    "exec denied by the kernel layer: " + what + " outside every exec rule" + suffix,
                    exe.toString(), Operation.EXEC, Layer.KERNEL, Decision.SOURCE);
            return new Spawn.NotStarted(Spawn.Reason.EXEC_DENIED, 126, errno, d.message(), Optional.of(d));
        }
        return new Spawn.NotStarted(Spawn.Reason.NOT_EXECUTABLE, 126, errno,
                "cannot execute " + exe + suffix + ": " + Errno.describe(errno), Optional.empty());
    }
}
