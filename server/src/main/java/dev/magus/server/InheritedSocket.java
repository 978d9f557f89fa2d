package dev.magus.server;

import io.netty.channel.Channel;
import io.netty.channel.ServerChannel;
import io.netty.channel.socket.nio.NioServerDomainSocketChannel;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.util.Optional;

/**
 * A listening Unix socket the server was started with instead of binding its own: systemd's
 * socket activation. systemd passes it as descriptor 3 ({@code LISTEN_FDS=1}) and bin/magus moves
 * it to descriptor 0 before the JVM starts (or the unit says {@code StandardInput=socket}), where
 * the JDK hands it over as {@link System#inheritedChannel()}; the JDK looks nowhere else.
 *
 * <p>It is bound already: the server registers Netty's NIO domain-socket channel around it with
 * its event loop, and never binds it. The socket belongs to systemd, which keeps listening after the server exits: the server never closes it
 * through Netty (which would unlink the path), see {@link #release}.
 */
final class InheritedSocket {
    private final ServerSocketChannel jdk;
    private final UnixDomainSocketAddress address;
    private volatile Channel netty;

    private InheritedSocket(ServerSocketChannel jdk, UnixDomainSocketAddress address) {
        this.jdk = jdk;
        this.address = address;
    }

    /** Standard input, when it is a listening Unix socket. */
    static Optional<InheritedSocket> fromStandardInput() throws IOException {
        if (System.inheritedChannel() instanceof ServerSocketChannel s
                && s.getLocalAddress() instanceof UnixDomainSocketAddress a) {
            return Optional.of(new InheritedSocket(s, a));
        }
        return Optional.empty();
    }

    UnixDomainSocketAddress address() {
        return address;
    }

    /** Netty's NIO domain-socket channel around it: bound already, so registering it is enough to accept. */
    ServerChannel channel() {
        NioServerDomainSocketChannel c = new NioServerDomainSocketChannel(jdk);
        netty = c;
        return c;
    }

    /**
     * Stops accepting without unlinking the path: Netty's close of the channel would delete the
     * socket file that systemd still listens on, so the channel leaves its event loop
     * (deregistered, not closed) and the JDK's channel, which never unlinks, is closed instead.
     */
    void release() {
        Channel c = netty;
        if (c != null && c.isRegistered()) {
            c.deregister().awaitUninterruptibly(5_000);
        }
        try {
            jdk.close();
        } catch (IOException e) {
            // systemd keeps its own descriptor; this one goes with the process
        }
    }
}
