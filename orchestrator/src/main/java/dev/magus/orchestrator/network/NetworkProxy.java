package dev.magus.orchestrator.network;

import dev.magus.events.Diagnostic;
import dev.magus.policy.net.NetworkPolicy;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.resources.LoopResources;
import reactor.netty.tcp.TcpServer;

/**
 * One run's forward proxy on 127.0.0.1 (an ephemeral port): HTTP {@code CONNECT host:port}
 * tunnels and absolute-form plain-HTTP requests, to the hosts {@code policy} declares only.
 * It resolves each name itself through {@code resolver}, refuses a name that resolves inside
 * (loopback, link-local, private) unless that exact name is declared, and connects to the
 * addresses it checked. A refused host gets HTTP 403 and is an MGS2013 handed to
 * {@code refusals}.
 *
 * <p>Lives exactly as long as the run: {@link #close} stops listening and closes every
 * connection, tunnels included. Every proxy of the process shares one small event loop;
 * nothing on it blocks (names are resolved on Reactor's bounded-elastic threads).
 */
public final class NetworkProxy implements AutoCloseable {
    /** Daemon threads: a command line exits with its run, whatever a tunnel is doing. */
    private static final LoopResources LOOPS = LoopResources.create("magus-proxy", 1, 2, true);

    private final DisposableServer server;
    private final ChannelGroup channels;

    private NetworkProxy(DisposableServer server, ChannelGroup channels) {
        this.server = server;
        this.channels = channels;
    }

    /**
     * Binds and returns once the proxy accepts connections. Blocks the caller while binding:
     * call it from a thread that may block (the run's I/O thread), never an event loop.
     *
     * @param refusals where each MGS2013 goes; called on an event loop, so it must not block
     */
    public static NetworkProxy start(NetworkPolicy policy, HostResolver resolver, Consumer<Diagnostic> refusals) {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(resolver, "resolver");
        Objects.requireNonNull(refusals, "refusals");
        ChannelGroup channels = new DefaultChannelGroup("magus-proxy", GlobalEventExecutor.INSTANCE);
        DisposableServer server = TcpServer.create()
                .host("127.0.0.1")
                .port(0)
                // NIO, as the server module: nothing here needs the epoll transport's extras.
                .runOn(LOOPS, false)
                .doOnChannelInit((observer, channel, remote) -> {
                    channels.add(channel);
                    channel.pipeline().addFirst(Frontend.NAME, new Frontend(policy, resolver, refusals, channels));
                })
                // The frontend consumes every byte; the connection lives until it closes the channel.
                .handle((in, out) -> Mono.never())
                .bindNow(Duration.ofSeconds(10));
        return new NetworkProxy(server, channels);
    }

    /** The port on 127.0.0.1 the child's proxy variables and the kernel's TCP rule name. */
    public int port() {
        return server.port();
    }

    /** Stops listening and closes every connection; waits at most a few seconds. */
    @Override
    public void close() {
        server.disposeNow(Duration.ofSeconds(5));
        channels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
