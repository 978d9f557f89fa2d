package dev.magus.policy.net;

import java.nio.file.Path;
import java.util.List;

/**
 * {@code sandbox.network.unix}, the workspace's alone: {@code allow} (every pathname and abstract
 * socket) or a list of socket paths. Below Landlock ABI 9 no kernel rule names a socket file, so
 * seccomp decides on {@code socket()} alone: undeclared refuses it (EACCES, MGS2015), either
 * declaration allows it, a list then reaching every socket the child can name. From ABI 9 the
 * listed paths become {@code RESOLVE_UNIX} grants and the kernel refuses every other pathname
 * socket; from ABI 6 abstract sockets outside the child's domain are refused whatever is declared.
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
