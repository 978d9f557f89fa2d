package dev.magus.orchestrator.network;

import dev.magus.events.Diagnostic;
import dev.magus.policy.net.NetworkPolicy;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One run's forward proxy on 127.0.0.1 (an ephemeral port): HTTP {@code CONNECT host:port}
 * tunnels and absolute-form plain-HTTP requests, to the hosts {@code policy} declares only.
 * It resolves each name itself through {@code resolver}, refuses a name that resolves inside
 * (loopback, link-local, private) unless that exact name is declared, and connects to the
 * addresses it checked. A refused host gets HTTP 403 and is an MGS2013 handed to
 * {@code refusals}.
 *
 * <p>Lives exactly as long as the run: {@link #close} stops listening and closes every
 * connection, tunnels included. The proxies of one owner of runs share its event loops
 * ({@link ProxyLoops}); nothing on them blocks (names are resolved on Reactor's bounded-elastic
 * threads).
 */
public final class NetworkProxy implements AutoCloseable {
    private final Channel server;
    private final ChannelGroup channels;

    private NetworkProxy(Channel server, ChannelGroup channels) {
        this.server = server;
        this.channels = channels;
    }

    /**
     * Binds and returns once the proxy accepts connections. Blocks the caller while binding:
     * call it from a thread that may block (the run's I/O thread), never an event loop.
     *
     * @param loops where it accepts and relays: its owner's ({@link ProxyLoops#group}), not closed by the proxy
     * @param refusals where each MGS2013 goes; called on an event loop, so it must not block
     */
    public static NetworkProxy start(EventLoopGroup loops, NetworkPolicy policy, HostResolver resolver,
            Consumer<Diagnostic> refusals) {
        Objects.requireNonNull(loops, "loops");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(resolver, "resolver");
        Objects.requireNonNull(refusals, "refusals");
        ChannelGroup channels = new DefaultChannelGroup("magus-proxy", GlobalEventExecutor.INSTANCE);
        Channel server = new ServerBootstrap().group(loops).channel(NioServerSocketChannel.class)
                // Read on demand only: the frontend reads the request head, then the relays read.
                .childOption(ChannelOption.AUTO_READ, false)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        // The frontend consumes every byte; the connection lives until it closes the channel.
                        channels.add(ch);
                        ch.pipeline().addFirst(Frontend.NAME, new Frontend(policy, resolver, refusals, channels));
                    }
                })
                .bind("127.0.0.1", 0).syncUninterruptibly().channel();
        return new NetworkProxy(server, channels);
    }

    /** The port on 127.0.0.1 the child's proxy variables and the kernel's TCP rule name. */
    public int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** Stops listening and closes every connection; waits at most a few seconds. */
    @Override
    public void close() {
        server.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        channels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
