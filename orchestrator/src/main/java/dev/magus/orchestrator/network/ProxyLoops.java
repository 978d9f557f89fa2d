package dev.magus.orchestrator.network;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The event loops the run proxies of one owner of runs share, and its binding sessions' HTTP
 * clients ({@link dev.magus.orchestrator.run.RunServices#proxyLoops}): made by the first proxied
 * run or request, so runs without network start no thread, and shut down with the owner
 * ({@link #close}).
 */
public final class ProxyLoops implements AutoCloseable {
    /** Two loops: they both accept and relay, and nothing on them blocks. */
    static final int LOOPS = 2;
    /** How long {@link #close} lets connections still open finish before the loops end. */
    static final long SHUTDOWN_SECONDS = 2;

    // Guarded by this.
    private EventLoopGroup group;
    private boolean closed;

    /** None yet: the loops are made by the first {@link #group}. */
    public ProxyLoops() {
    }

    /**
     * The loops, made on first use. Daemon threads: a command line exits with its run, whatever
     * a tunnel is doing. NIO, as nothing here needs the epoll transport's extras.
     *
     * @throws IllegalStateException once closed
     */
    public synchronized EventLoopGroup group() {
        if (closed) {
            throw new IllegalStateException("the proxy's event loops are closed with their owner's services");
        }
        if (group == null) {
            group = new NioEventLoopGroup(LOOPS, new DefaultThreadFactory("magus-proxy", true));
        }
        return group;
    }

    /** Whether a proxied run made the loops. */
    public synchronized boolean started() {
        return group != null;
    }

    /**
     * Takes no more proxies and shuts the loops down gracefully, without waiting for them: what
     * is still open gets {@value #SHUTDOWN_SECONDS} s. Call once no run of the owner is running.
     */
    @Override
    public synchronized void close() {
        closed = true;
        if (group != null) {
            group.shutdownGracefully(0, SHUTDOWN_SECONDS, TimeUnit.SECONDS);
        }
    }
}
