package dev.magus.landlock.denials;

import dev.magus.events.Diagnostic;
import dev.magus.events.Operation;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The seam to the run's policy: the binding-layer check, asked after the fact. A child's
 * "Permission denied" can come from file modes, another LSM or a read-only mount; only a
 * path the policy really refuses is the sandbox's doing, so only those become diagnostics.
 *
 * <p>The orchestrator implements this with the policy's {@code check(op, path)}. The
 * returned diagnostic carries the code (MGS2001/2002/2007), the resolved subject and the
 * details the policy gives (notably {@code allow_yaml}, the declaration that would allow
 * the access); the denial sources replace its layer and source with their own.
 */
@FunctionalInterface
public interface DenialConfirmer {

    /**
     * @param op   READ, WRITE or EXEC (never NONE)
     * @param path absolute, as the child named it (not yet resolved)
     * @param cwd  the child's working directory
     * @return the refusal the policy would give, or empty when the policy allows the access
     */
    Optional<Diagnostic> confirm(Operation op, Path path, Path cwd);

    /**
     * The network half: the refusal the run's TCP rules would give a connect to {@code host}
     * on {@code port} (MGS2013), or empty when they allow it or cannot tell (no port printed
     * and some ports allowed). Empty unless the run confines TCP.
     */
    default Optional<Diagnostic> confirmConnect(String host, java.util.OptionalInt port) {
        return Optional.empty();
    }

    /**
     * The refusal the run's TCP rules would give a bind (a listen) on {@code port} (MGS2013), or
     * empty when they allow it or cannot tell. Empty unless the run confines TCP.
     */
    default Optional<Diagnostic> confirmBind(String host, java.util.OptionalInt port) {
        return Optional.empty();
    }

    /**
     * The seccomp half: the refusal the run's socket rules would give a socket the tool says
     * it could not open (MGS2015), or empty when they allow that kind of socket.
     *
     * @param what a Unix socket's path, {@code unix}, {@code udp}, {@code raw}, {@code packet},
     *             or empty when the tool did not say which socket
     */
    default Optional<Diagnostic> confirmSocket(String what) {
        return Optional.empty();
    }

    /** {@code files} for paths, {@code connects} for TCP connects and binds (and sockets). */
    static DenialConfirmer withConnects(DenialConfirmer files, ConnectConfirmer connects) {
        return new DenialConfirmer() {
            @Override
            public Optional<Diagnostic> confirm(Operation op, Path path, Path cwd) {
                return files.confirm(op, path, cwd);
            }

            @Override
            public Optional<Diagnostic> confirmConnect(String host, java.util.OptionalInt port) {
                return connects.confirmConnect(host, port);
            }

            @Override
            public Optional<Diagnostic> confirmBind(String host, java.util.OptionalInt port) {
                return connects.confirmBind(host, port);
            }

            @Override
            public Optional<Diagnostic> confirmSocket(String what) {
                return connects.confirmSocket(what);
            }
        };
    }

    /** The network half alone; see {@link #confirmConnect}. */
    @FunctionalInterface
    interface ConnectConfirmer {
        Optional<Diagnostic> confirmConnect(String host, java.util.OptionalInt port);

        /** See {@link DenialConfirmer#confirmBind}; empty unless implemented. */
        default Optional<Diagnostic> confirmBind(String host, java.util.OptionalInt port) {
            return Optional.empty();
        }

        /** See {@link DenialConfirmer#confirmSocket}; empty unless implemented. */
        default Optional<Diagnostic> confirmSocket(String what) {
            return Optional.empty();
        }
    }
}
