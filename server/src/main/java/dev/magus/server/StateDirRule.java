package dev.magus.server;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Optional;

/**
 * Which state dir a forwarded run may use. The state dir decides a run's reach (lease markers,
 * job store, audit walks), so following a client's ({@code MAGUS_STATE_DIR}, {@code HOME}, ...)
 * would let it run outside its checkout's lease. A client whose state dir is not the server's
 * is <em>declined</em> and runs the work itself. The server's own, when it exists, must be a
 * real directory owned by its user and writable by nobody else (else another user could forge a
 * lease marker or a job), or every run is refused (MGS2004). {@code MAGUS_SANDBOX} and
 * {@code MAGUS_LEASE} are the client's to carry: both only narrow ({@link ModeRules}; a carried
 * lease is checked against the checkout's marker).
 */
final class StateDirRule {
    private StateDirRule() {
    }

    /** Why a run cannot use the server's state dir; empty when it can. */
    static Optional<Diagnostic> unsafe(Path stateDir, long uid) {
        // One lstat for all of it.
        java.util.Map<String, Object> a;
        try {
            a = Files.readAttributes(stateDir, "unix:isDirectory,isSymbolicLink,permissions,uid", LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return Optional.of(refusal(stateDir, "cannot be examined (" + e + ")"));
        }
        if (!Boolean.TRUE.equals(a.get("isDirectory"))) {
            return Optional.of(refusal(stateDir, Boolean.TRUE.equals(a.get("isSymbolicLink")) ? "is a symbolic link"
                    : "is not a directory"));
        }
        long owner;
        java.util.Set<?> permissions;
        try {
            owner = ((Number) a.get("uid")).longValue();
            permissions = (java.util.Set<?>) a.get("permissions");
            java.util.Objects.requireNonNull(permissions, "permissions");
        } catch (RuntimeException e) {
            return Optional.of(refusal(stateDir, "has an owner that cannot be read (" + e + ")"));
        }
        if (owner != uid) {
            return Optional.of(refusal(stateDir, "belongs to uid " + owner + ", not to this server's user (uid " + uid + ")"));
        }
        if (permissions.contains(PosixFilePermission.GROUP_WRITE) || permissions.contains(PosixFilePermission.OTHERS_WRITE)) {
            return Optional.of(refusal(stateDir, "is writable by its group or by others (chmod go-w it)"));
        }
        return Optional.empty();
    }

    /** The line a declined client shows: it runs the work itself. */
    static String declined(Path client, Path server) {
        return "the magus server keeps its leases and jobs in " + server + ", and this client names another state dir ("
                + client + "); running it here instead";
    }

    private static Diagnostic refusal(Path stateDir, String why) {
        return Diagnostic.of(Code.MGS2004, "the magus server's state dir " + stateDir + " " + why + "; it holds the lease"
                + " markers and the job store, so no run is served until it is the user's own", stateDir.toString(),
                Operation.NONE, Layer.POLICY, "server");
    }
}
