package dev.magus.landlock.supervise;

import java.util.Objects;

/**
 * One access the run's policy refused, put to the {@link Approver} while the caller waits.
 *
 * @param pid      the calling thread's id
 * @param process  the caller's program ({@code argv[0]}, else its {@code comm}); empty when unreadable
 * @param asked    the path as the caller named it, made absolute against its working directory
 * @param resolved the path with every link resolved: what magus opens, following no link, if allowed
 * @param access   what the call asks for
 */
public record Ask(int pid, String process, String asked, String resolved, Access access) {
    public Ask {
        Objects.requireNonNull(process, "process");
        Objects.requireNonNull(asked, "asked");
        Objects.requireNonNull(resolved, "resolved");
        Objects.requireNonNull(access, "access");
    }

    /** What an asked-for open does. */
    public enum Access {
        READ("read"),
        WRITE("write"),
        /** An open that creates the file ({@code O_CREAT} of a path that does not exist). */
        CREATE("create"),
        /** An open of a directory, to list it. */
        LIST("list");

        private final String label;

        Access(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }
}
