package dev.magus.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.socket.nio.NioServerDomainSocketChannel;
import java.io.IOException;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.publisher.Mono;
import reactor.netty.resources.LoopResources;

/**
 * A listening Unix socket the server was started with instead of binding its own: systemd's
 * socket activation. systemd passes it as descriptor 3 ({@code LISTEN_FDS=1}) and bin/magus moves
 * it to descriptor 0 before the JVM starts (or the unit says {@code StandardInput=socket}), where
 * the JDK hands it over as {@link System#inheritedChannel()}; the JDK looks nowhere else.
 *
 * <p>Reactor-netty binds the channels it makes; this one is bound already. So the event loops
 * are wrapped: the server channel they make is Netty's NIO domain-socket channel around the
 * inherited one, with a first handler that completes the bind without binding again. The socket
 * belongs to systemd, which keeps listening after the server exits: the server never closes it
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

    /** {@code loops}, whose first server channel is this socket's. */
    LoopResources adoptedBy(LoopResources loops) {
        AtomicBoolean given = new AtomicBoolean();
        InheritedSocket self = this;
        return new LoopResources() {
            @Override
            public EventLoopGroup onServer(boolean useNative) {
                return loops.onServer(useNative);
            }

            @Override
            public EventLoopGroup onServerSelect(boolean useNative) {
                return loops.onServerSelect(useNative);
            }

            @Override
            public EventLoopGroup onClient(boolean useNative) {
                return loops.onClient(useNative);
            }

            @Override
            public boolean daemon() {
                return loops.daemon();
            }

            @Override
            @SuppressWarnings("unchecked")
            public <C extends Channel> C onChannel(Class<C> type, EventLoopGroup group) {
                if (ServerChannel.class.isAssignableFrom(type) && given.compareAndSet(false, true)) {
                    Channel c = new NioServerDomainSocketChannel(jdk);
                    c.pipeline().addFirst("magus-inherited", new ChannelOutboundHandlerAdapter() {
                        @Override
                        public void bind(ChannelHandlerContext ctx, SocketAddress local, ChannelPromise promise) {
                            promise.setSuccess(); // bound by whoever passed it
                        }
                    });
                    self.netty = c;
                    return (C) c;
                }
                return loops.onChannel(type, group);
            }

            @Override
            public <C extends Channel> Class<? extends C> onChannelClass(Class<C> type, EventLoopGroup group) {
                return loops.onChannelClass(type, group);
            }

            @Override
            public Mono<Void> disposeLater(java.time.Duration quiet, java.time.Duration timeout) {
                return loops.disposeLater(quiet, timeout);
            }

            @Override
            public Mono<Void> disposeLater() {
                return loops.disposeLater();
            }

            @Override
            public void dispose() {
                loops.dispose();
            }

            @Override
            public boolean isDisposed() {
                return loops.isDisposed();
            }
        };
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
