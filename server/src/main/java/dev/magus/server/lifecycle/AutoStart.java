package dev.magus.server.lifecycle;

import dev.magus.events.MagusEnv;
import dev.magus.server.socket.SocketDir;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Whether {@code magus run}, finding no server, starts the user's own in the background (as
 * Bazel's and Gradle's clients start theirs): only in a login session, so that a test suite
 * with a hundred throwaway homes, a CI job or a container leaves no server behind. The run that
 * starts it runs here, locally, beside the server's start; the runs after it are forwarded.
 *
 * <p>A login session is all of: {@code XDG_RUNTIME_DIR} an absolute path to a directory (not a
 * link) owned by this user; {@code HOME} this user's home in the user database (a throwaway
 * {@code HOME} is not); no {@code CI}; not inside a magus run; no {@code MAGUS_SERVER_ADDRESS}
 * (which names a server of its own); and not {@code MAGUS_SERVER=off}. {@code magus-client.c}'s
 * {@code login_session} is the same rule (AutoStartRuleTest holds the two together).
 */
public final class AutoStart {
    /** {@value MagusEnv#SERVER}'s value that keeps every run local and starts nothing. */
    public static final String OFF = "off";

    private AutoStart() {
    }

    /** Whether {@code MAGUS_SERVER=off} keeps every run away from a server. */
    public static boolean off(Map<String, String> env) {
        return OFF.equals(env.get(MagusEnv.SERVER));
    }

    /**
     * Why no server starts by itself with these facts; empty when one does.
     *
     * @param runtimeOwner the owner of {@code XDG_RUNTIME_DIR} when it is a directory (not a link)
     * @param userHome     this user's home in the user database
     */
    public static Optional<String> refusal(Map<String, String> env, long uid, Optional<Long> runtimeOwner, String userHome) {
        String runtime = env.get("XDG_RUNTIME_DIR");
        if (off(env)) {
            return Optional.of(MagusEnv.SERVER + "=" + OFF);
        } else if (MagusEnv.nested(env)) {
            return Optional.of("inside a magus run");
        } else if (!blank(env.get(MagusEnv.SERVER_ADDRESS))) {
            return Optional.of(MagusEnv.SERVER_ADDRESS + " names a server");
        } else if (!blank(env.get("CI"))) {
            return Optional.of("CI is set");
        } else if (runtime == null || !runtime.startsWith("/") || runtimeOwner.isEmpty() || runtimeOwner.get() != uid) {
            return Optional.of("not a login session: no XDG_RUNTIME_DIR of yours");
        } else if (!trimmed(env.getOrDefault("HOME", "")).equals(trimmed(userHome))) {
            return Optional.of("HOME is not your home in the user database");
        }
        return Optional.empty();
    }

    /** {@link #refusal(Map, long, Optional, String)} with this process's facts. */
    public static Optional<String> refusal(Map<String, String> env, long uid) {
        Optional<Long> owner = Optional.empty();
        String runtime = env.get("XDG_RUNTIME_DIR");
        if (runtime != null && runtime.startsWith("/")) {
            Path p = Path.of(runtime);
            try {
                if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                    owner = Optional.of(((Number) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS)).longValue());
                }
            } catch (IOException | RuntimeException e) {
                owner = Optional.empty();
            }
        }
        // The JDK takes user.home from the user database (getpwuid), never from HOME.
        return refusal(env, uid, owner, System.getProperty("user.home", ""));
    }

    /**
     * The client found no server at {@code dir}: in a login session, starts one in the background
     * and says so on {@code lines}; elsewhere nothing. Never fails the run, which goes on here.
     */
    public static void nobodyThere(SocketDir dir, Map<String, String> env, long uid, PrintWriter lines) {
        if (refusal(env, uid).isPresent()) {
            return;
        }
        try {
            dir.prepare(uid);
            ServerProcess.spawn(dir, List.of(), true);
            lines.println("magus: started the magus server in the background (log " + dir.dir().resolve(ServerProcess.LOG)
                    + "); this run runs here, the next ones go to it");
        } catch (IOException | RuntimeException e) {
            lines.println("magus: could not start the magus server (" + e.getMessage() + "); running here");
        }
        lines.flush();
    }

    private static boolean blank(String s) {
        return s == null || s.isEmpty();
    }

    private static String trimmed(String path) {
        String p = path;
        while (p.length() > 1 && p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        return p;
    }
}
