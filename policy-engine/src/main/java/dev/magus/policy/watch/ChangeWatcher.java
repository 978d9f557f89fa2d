package dev.magus.policy.watch;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Which directories of some roots had a name created, removed or renamed, or their own
 * attributes changed, between {@link #start} and {@link Watching#drain}: the kernel's events
 * ({@code fanotify} with {@code FAN_REPORT_DFID_NAME}, landlock's {@code FanotifyWatcher}),
 * so that the control-file audit after a run lists again only those directories instead of
 * stamping every one. Found with {@link java.util.ServiceLoader}, as
 * {@link dev.magus.policy.path.DirectoryReader} is; this module holds only the seam.
 *
 * <p>The answer is never "fewer changes": whatever an implementation cannot vouch for (no
 * permission, a filesystem without file handles, an event queue that overflowed, a handle it
 * cannot resolve) is a {@link Refused} or a {@link Doubt}, and the caller then does what it
 * did without events (stamps every directory). Implementations have a public no-argument
 * constructor and never throw.
 */
public interface ChangeWatcher {

    /** Whether this watcher can work here at all (its natives load on this platform). */
    default boolean available() {
        return true;
    }

    /**
     * Starts watching every filesystem that holds one of {@code roots} (absolute directories),
     * from now on; events of other processes on those filesystems come too and are the caller's
     * to filter. Never throws.
     */
    Started start(List<Path> roots);

    /** What {@link #start} gave. */
    sealed interface Started permits Watching, Refused {
    }

    /** Not watching, and why ({@code fanotify_init: EPERM (Operation not permitted)}, ...). */
    record Refused(String reason) implements Started {
        public Refused {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /** A watch under way: drained once, then closed (closing twice is harmless). */
    non-sealed interface Watching extends Started, AutoCloseable {
        /** Every event since {@link #start}, resolved to paths; then nothing more is watched. */
        Drained drain();

        @Override
        void close();
    }

    /** What {@link Watching#drain} gave. */
    sealed interface Drained permits Events, Doubt {
    }

    /** Every event since the start: each directory as the kernel's path of it now. */
    record Events(List<Event> events) implements Drained {
        public Events {
            events = List.copyOf(events);
        }
    }

    /** The events cannot be trusted to be complete (queue overflow, an unresolvable handle, a failed read): why. */
    record Doubt(String reason) implements Drained {
        public Doubt {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * One event: in {@code directory} (its real path now), the entry {@code name} was created,
     * removed, renamed or had its attributes changed; {@code name} is {@code "."} when the
     * event is the directory's own (its mode, its removal or move), and empty when the name could
     * not be decoded. {@code mask} is the kernel's event mask, for diagnostics.
     */
    record Event(Path directory, String name, long mask) {
        public Event {
            Objects.requireNonNull(directory, "directory");
            Objects.requireNonNull(name, "name");
        }

        /** Whether the event is the directory's own rather than about a name in it. */
        public boolean self() {
            return name.equals(".");
        }
    }
}
