package dev.magus.landlock.denials.infer;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Files;
import java.util.Objects;

/**
 * A live child's working directory, read from {@code /proc/<pid>/cwd}. A build script
 * {@code cd}s before it runs the tool that prints {@code cat: ../x: Permission denied}, so
 * the directory the run started in is the wrong base for a relative path. The readlink is
 * cheap but not free: {@link KernelDenials} asks it only for a line that names a relative path.
 *
 * <p>When the child has gone (or this is not Linux) the start directory is the answer: by
 * then it is the best guess left, and the policy still confirms whatever it leads to.
 */
public record ProcCwd(long pid, Path start) implements DenialParser.Cwd {
    public ProcCwd {
        Objects.requireNonNull(start, "start");
    }

    @Override
    public Path get() {
        if (pid <= 0) {
            return start;
        }
        try {
            Path link = Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "cwd"));
            return link.isAbsolute() && !link.toString().endsWith(" (deleted)") ? link : start;
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return start;
        }
    }
}
