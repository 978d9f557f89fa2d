package dev.magus.server.socket;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Set;

/**
 * Where the server's socket and token live, and the checks that make the place private.
 *
 * <p>The directory is {@code $XDG_RUNTIME_DIR/magus/}; else {@code <user cache dir>/magus-run/};
 * only with neither (no absolute {@code XDG_RUNTIME_DIR}, {@code XDG_CACHE_HOME} or
 * {@code HOME}) {@code /tmp/magus-<uid>/}; never {@code $TMPDIR}, which a harness may point
 * inside a workspace. Not {@code <user cache dir>/magus/run/}: every sandboxed run may read and
 * write magus's cache dir (the core footprint), so the token would be readable by the children
 * it keeps out; no confined run is granted the sibling {@code magus-run}.
 *
 * <p>The directory is created 0700 and used only when it is owned by this user and has no
 * group or other bits; anything else (another user's, a looser mode, a symbolic link) is
 * refused rather than repaired, since someone else may already be listening there.
 */
public record SocketDir(Path dir) {
    /** The socket's file name; the token is {@value #SOCKET_NAME}{@code .token} beside it. */
    public static final String SOCKET_NAME = "server.sock";

    public SocketDir {
        if (!dir.isAbsolute()) {
            throw new IllegalArgumentException("the socket dir must be absolute: " + dir);
        }
    }

    /** The directory for a user with this environment, home and uid (see the class comment). */
    public static SocketDir forUser(Map<String, String> env, long uid) {
        // No lambdas here: the fast forwarding client calls this, and each would cost its start a bootstrap.
        String runtime = env.get("XDG_RUNTIME_DIR");
        if (absolute(runtime)) {
            return new SocketDir(Path.of(runtime).resolve("magus"));
        }
        String cache = env.get("XDG_CACHE_HOME");
        if (absolute(cache)) {
            return new SocketDir(Path.of(cache).resolve("magus-run"));
        }
        String home = env.get("HOME");
        if (absolute(home)) {
            return new SocketDir(Path.of(home).resolve(".cache").resolve("magus-run"));
        }
        return new SocketDir(Path.of("/tmp", "magus-" + uid));
    }

    private static boolean absolute(String value) {
        return value != null && value.startsWith("/");
    }

    public Path socket() {
        return dir.resolve(SOCKET_NAME);
    }

    public Path tokenFile() {
        return dir.resolve(SOCKET_NAME + ".token");
    }

    /**
     * Creates the directory (0700) if it is missing, then checks it.
     *
     * @throws SandboxException MGS2004 when it cannot be made or is not private to {@code uid}
     */
    public Path prepare(long uid) {
        try {
            Files.createDirectories(dir.getParent());
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (FileAlreadyExistsException e) {
                // checked below, never widened or chmod-ed into shape
            }
        } catch (IOException e) {
            throw refusal("cannot create the server's socket directory " + dir + ": " + e.getMessage());
        }
        check(uid);
        return dir;
    }

    /**
     * @throws SandboxException MGS2004 when the directory is not a real directory owned by
     *         {@code uid} with mode 0700 (no group or other bits)
     */
    public void check(long uid) {
        try {
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                throw refusal("the server's socket directory " + dir + " is not a directory (a symbolic link is not used)");
            }
            Object owner = Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            if (!(owner instanceof Integer o) || o.longValue() != uid) {
                throw refusal("the server's socket directory " + dir + " belongs to uid " + owner + ", not to you (uid "
                        + uid + "); magus does not use it, since its owner controls who listens there");
            }
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS);
            boolean others = false;
            for (PosixFilePermission p : perms) {
                others |= p.name().startsWith("GROUP") || p.name().startsWith("OTHERS");
            }
            if (others) {
                throw refusal("the server's socket directory " + dir + " has mode " + PosixFilePermissions.toString(perms)
                        + "; it must be rwx------ (0700) so that no one else can reach the socket or read its token;"
                        + " run: chmod 700 " + dir);
            }
        } catch (IOException e) {
            throw refusal("cannot check the server's socket directory " + dir + ": " + e.getMessage());
        }
    }

    private static SandboxException refusal(String message) {
        return new SandboxException(Diagnostic.of(Code.MGS2004, message, "", Operation.NONE, Layer.POLICY, "server"));
    }
}
