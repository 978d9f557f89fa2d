package dev.magus.server.client;

import dev.magus.events.MagusEnv;
import dev.magus.server.socket.SocketDir;
import dev.magus.server.socket.Token;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Where a client finds the user's server, and the token it says hello with. A recursive magus
 * (one a forwarded run started) has both in its environment, {@code MAGUS_SERVER_ADDRESS} and
 * {@code MAGUS_PROC_TOKEN}, re-injected by the server: it is confined and can read neither the
 * socket directory's token file nor, necessarily, the environment that would lead to it. Every
 * other client finds the socket through {@link SocketDir} and reads the token file beside it.
 *
 * @param dir    the directory the socket is in, checked (owner, 0700) before connecting
 * @param socket the socket
 * @param token  the token, when there is one to read
 */
public record ServerLocation(SocketDir dir, Path socket, Optional<String> token) {
    /** Names of the pointers; compile-time constants of MagusEnv, so the fast client loads no class for them. */
    static final String SERVER_ADDRESS = MagusEnv.SERVER_ADDRESS;
    static final String PROC_TOKEN = MagusEnv.PROC_TOKEN;

    /** Written without lambdas or streams: each would cost the fast client's start a bootstrap. */
    public static ServerLocation find(Map<String, String> env, long uid) {
        String carried = env.get(PROC_TOKEN);
        String address = env.get(SERVER_ADDRESS);
        if (address != null && address.startsWith("/") && Path.of(address).getParent() != null) {
            Path socket = Path.of(address);
            return new ServerLocation(new SocketDir(socket.getParent()), socket, carried != null && !carried.isEmpty()
                    ? Optional.of(carried) : Token.read(socket.resolveSibling(socket.getFileName() + ".token")));
        }
        SocketDir dir = SocketDir.forUser(env, uid);
        return new ServerLocation(dir, dir.socket(), carried != null && !carried.isEmpty() ? Optional.of(carried)
                : Token.read(dir.tokenFile()));
    }
}
