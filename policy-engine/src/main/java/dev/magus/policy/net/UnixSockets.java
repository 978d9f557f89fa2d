package dev.magus.policy.net;

import java.nio.file.Path;
import java.util.List;

/**
 * {@code sandbox.network.unix}: whether a confined child may open Unix sockets at all
 * ({@code socket(AF_UNIX, ...)}), which only the workspace declares.
 *
 * <pre>
 * network:
 *   unix: allow                                   # every pathname and abstract socket
 *   unix: [/run/postgresql/.s.PGSQL.5432]         # these sockets
 * </pre>
 *
 * <p>Below Landlock ABI 9 the kernel has no rule naming a socket file, so the seccomp layer
 * decides on {@code socket()} alone: undeclared refuses it (EACCES, MGS2015), and either
 * declaration allows it, a list then reaching every socket the child can name. From ABI 9
 * the listed paths become Landlock's {@code RESOLVE_UNIX} grants and every other pathname
 * socket is refused by the kernel; abstract sockets outside the child's domain are refused
 * from ABI 6 ({@code LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET}) whatever is declared here.
 * {@code socketpair} is never refused: a pair reaches only the process and its children.
 */
public sealed interface UnixSockets {
    /** Whether {@code socket(AF_UNIX, ...)} is allowed. */
    boolean allowsSocketCall();

    /** What the policy summary says. */
    String describe();

    /** Nothing declared: {@code socket(AF_UNIX, ...)} is refused. */
    record Undeclared() implements UnixSockets {
        @Override
        public boolean allowsSocketCall() {
            return false;
        }

        @Override
        public String describe() {
            return "none (socket(AF_UNIX) refused; socketpair allowed)";
        }
    }

    /** {@code unix: allow}. */
    record Any() implements UnixSockets {
        @Override
        public boolean allowsSocketCall() {
            return true;
        }

        @Override
        public String describe() {
            return "allow (every Unix socket)";
        }
    }

    /** {@code unix: [paths]}: absolute paths of socket files. */
    record Paths(List<Path> paths) implements UnixSockets {
        public Paths {
            paths = List.copyOf(paths);
            if (paths.isEmpty()) {
                throw new IllegalArgumentException("a list of Unix sockets names at least one");
            }
            for (Path p : paths) {
                if (!p.isAbsolute()) {
                    throw new IllegalArgumentException("not absolute: " + p);
                }
            }
        }

        @Override
        public boolean allowsSocketCall() {
            return true;
        }

        @Override
        public String describe() {
            return String.join(", ", paths.stream().map(Path::toString).toList())
                    + " (below Landlock ABI 9: every Unix socket)";
        }
    }

    UnixSockets UNDECLARED = new Undeclared();
}
