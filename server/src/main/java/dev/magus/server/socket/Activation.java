package dev.magus.server.socket;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * A socket with no token beside it that still accepts connections: systemd's socket activation
 * ({@code magus.socket}) listening for a server not started yet. Connecting starts the server,
 * which writes its token before it serves; a client waits for that token, for as long as the
 * socket is there and its connection open (a server that failed to start closes it). {@code magus-client.c}'s {@code await_token} is the same wait.
 */
public final class Activation {
    /** How long a client waits for an activated server's token: a JVM's start on a busy machine. */
    public static final Duration WITHIN = Duration.ofSeconds(30);

    private Activation() {
    }

    /** The token of a server that {@code socket}'s connection starts; empty when nobody listens or none comes. */
    public static Optional<String> awaitToken(Path socket, Path tokenFile, Duration within) {
        try (SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            c.connect(UnixDomainSocketAddress.of(socket));
            c.configureBlocking(false);
            long deadline = System.nanoTime() + within.toNanos();
            while (System.nanoTime() < deadline && Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
                Optional<String> token = Token.read(tokenFile);
                if (token.isPresent() && !token.get().isEmpty()) {
                    return token;
                }
                if (c.read(ByteBuffer.allocate(1)) != 0) {
                    return Optional.empty(); // closed: nothing comes before the hello
                }
                Thread.sleep(10);
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.empty(); // nobody listens (a stale socket), or the connection broke
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
