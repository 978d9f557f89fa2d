package dev.magus.landlock.launch;

import dev.magus.events.Diagnostic;
import java.util.Objects;
import java.util.Optional;

/** The outcome of {@link Launcher#spawn}: a running child, or why the command never ran. */
public sealed interface Spawn {

    /** The child is running. */
    record Started(Child child) implements Spawn {
        public Started {
            Objects.requireNonNull(child, "child");
        }
    }

    /**
     * The command did not start; nothing ran. {@code status} is what {@code magus run} exits
     * with (127 not found, 126 not executable or denied), as a shell would.
     *
     * @param diagnostic MGS2007 when the kernel layer denied the exec
     */
    record NotStarted(Reason reason, int status, int errno, String message, Optional<Diagnostic> diagnostic)
            implements Spawn {
        public NotStarted {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(message, "message");
            Objects.requireNonNull(diagnostic, "diagnostic");
        }
    }

    enum Reason {
        /** ENOENT/ENOTDIR: 127. */
        NOT_FOUND,
        /** The working directory does not exist (posix_spawn would report it as ENOENT too): 127. */
        NO_WORKING_DIRECTORY,
        /** EACCES on a file without execute permission, or another exec error: 126. */
        NOT_EXECUTABLE,
        /** EACCES from Landlock: the kernel layer refused the exec: 126 with MGS2007. */
        EXEC_DENIED
    }
}
