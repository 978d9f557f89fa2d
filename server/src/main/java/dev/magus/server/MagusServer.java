package dev.magus.server;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import dev.magus.orchestrator.run.Host;
import dev.magus.orchestrator.Orchestrator;
import dev.magus.server.client.ServerClient;
import dev.magus.server.lifecycle.IdleTimeout;
import dev.magus.server.lifecycle.IdleWatch;
import dev.magus.server.protocol.Frame;
import dev.magus.server.socket.SocketDir;
import dev.magus.server.socket.Token;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import reactor.core.scheduler.Schedulers;

/**
 * {@code magus server}: one per user, listening on {@link SocketDir#socket()} and serving
 * forwarded runs of any workspace, each under its own workspace's policy and the client's own
 * environment. magus itself is never confined, which is why one process can serve many
 * workspaces.
 *
 * <p>A Netty {@link ServerBootstrap} on epoll, or NIO ({@link UnixDomainSocketAddress}) where
 * epoll does not load or systemd passed the socket; each connection's pipeline is the hello
 * gate's frame decoder, then its {@link Session}. Everything that blocks runs on the
 * orchestrator's own I/O threads.
 */
public final class MagusServer implements AutoCloseable {
    /**
     * Each connection's write buffer: above the high mark a run's pipe readers wait for the
     * client (see {@code Session.Out}), below the low one they go on. Bounds what a slow
     * client costs the server to this, per connection.
     */
    static final int HIGH_WATER = 256 * 1024;
    static final int LOW_WATER = 64 * 1024;
    static final String LOCK = "server.lock";
    /** Set on a connection that only asked for the status (see {@link IdleWatch}). */
    private static final io.netty.util.AttributeKey<String> ACTIVITY = io.netty.util.AttributeKey.valueOf("magus.activity");
    private static final String STATUS_ONLY = "status";
    /** Event loops, each accepting and serving connections (no separate acceptor thread). */
    static final int EVENT_LOOPS = 1;

    private final SocketDir dir;
    private final Orchestrator orchestrator;
    private final Host host;
    private final ServerMeters meters;
    private final Token token;
    private final RunTokens runTokens = new RunTokens();
    /** Where this server's Prometheus scrape is ({@code host:port}), once it serves one. */
    private volatile Optional<String> metrics = Optional.empty();
    private final EventLoopGroup loops;
    /** The listening channel, set once bound; connections may be served a moment before. */
    private volatile Channel server;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final java.util.Set<Session> sessions = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private final HelloGate gate;
    /** magus's own lines of a forwarded run, written on its stderr (the command line's rendering). */
    private final RunLines lines;
    /** The command line's parser of the words a client was given. */
    private final RunGrammar grammar;
    /** Whether and when the server stops by itself: no connection for its idle timeout. */
    private final IdleWatch idle;
    /** The socket systemd passed, served instead of one of its own; it outlives the server. */
    private final Optional<InheritedSocket> inherited;
    /** {@value #LOCK} in the socket directory, locked while this server lives. */
    private final FileChannel lock;
    /** The one pending idle check, replaced whenever the last connection closes. */
    private volatile io.netty.util.concurrent.Future<?> idleCheck;

    private MagusServer(SocketDir dir, Orchestrator orchestrator, Host host, ServerMeters meters, HelloGate gate, Token token,
            EventLoopGroup loops, Settings settings, IdleWatch idle, FileChannel lock, Optional<InheritedSocket> inherited) {
        this.lines = settings.lines();
        this.grammar = settings.grammar();
        this.inherited = inherited;
        this.idle = idle;
        this.lock = lock;
        this.dir = dir;
        this.orchestrator = orchestrator;
        this.host = host;
        this.meters = meters;
        this.gate = gate;
        this.token = token;
        this.loops = loops;
    }

    /** Thrown by {@link #start} when a live server already answers on the socket. */
    public static final class AlreadyRunning extends IOException {
        private static final long serialVersionUID = 1L;

        public AlreadyRunning(Path socket) {
            super("a magus server is already running on " + socket);
        }
    }

    /**
     * How a server serves, beyond where and what it runs.
     *
     * @param lines       renders magus's own lines of each forwarded run on its stderr (the command line's)
     * @param grammar     parses each client's words (the command line's model)
     * @param idleTimeout the server stops by itself after this long with no connection
     * @param inherit     serve a listening Unix socket on standard input (systemd's socket
     *                    activation, see {@link InheritedSocket}) instead of one of its own; it must
     *                    be this user's socket path
     */
    public record Settings(RunLines lines, RunGrammar grammar, IdleTimeout idleTimeout, boolean inherit) {
        public static final Settings DEFAULTS = new Settings(RunLines.NONE, RunGrammar.NONE, IdleTimeout.DEFAULT, false);

        public Settings {
            Objects.requireNonNull(lines, "lines");
            Objects.requireNonNull(grammar, "grammar");
            Objects.requireNonNull(idleTimeout, "idleTimeout");
        }
    }

    /**
     * Starts the server as {@code settings} say: the directory is prepared and checked, a live
     * server on the socket is left alone ({@link AlreadyRunning}), a stale socket (nothing
     * listening) is replaced, and a fresh token is written before the socket is bound.
     *
     * @param orchestrator runs the forwarded work; built with {@code registry} so that the
     *                     runs' meters sit beside the server's
     * @throws SandboxException MGS2004 when an inherited socket is another path
     */
    public static MagusServer start(SocketDir dir, Host host, Orchestrator orchestrator, MeterRegistry registry,
            Settings settings) throws IOException {
        IdleTimeout idleTimeout = settings.idleTimeout();
        boolean inherit = settings.inherit();
        Objects.requireNonNull(orchestrator, "orchestrator");
        dir.prepare(host.uid());
        Path socket = dir.socket();
        Optional<InheritedSocket> inherited = inherit ? InheritedSocket.fromStandardInput() : Optional.empty();
        if (inherited.isPresent() && !inherited.get().address().getPath().toAbsolutePath().normalize().equals(socket)) {
            throw new SandboxException(Diagnostic.of(Code.MGS2004, "the socket this server was started with ("
                    + inherited.get().address().getPath() + ", systemd's socket activation) is not your server's socket "
                    + socket + ", where clients look: set ListenStream=%t/magus/" + SocketDir.SOCKET_NAME
                    + " in magus.socket", inherited.get().address().getPath().toString(), Operation.NONE, Layer.POLICY,
                    "LISTEN_FDS"));
        }
        // One server at a time per directory, held for its life: two clients that each start one
        // (two first runs at once) would otherwise each write a token, and the loser, failing to
        // bind, delete the winner's.
        FileChannel lock = FileChannel.open(dir.dir().resolve(LOCK), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        try {
            if (lockOrNull(lock) == null) {
                throw new AlreadyRunning(socket);
            }
            if (inherited.isEmpty() && Files.exists(socket, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                if (ServerClient.listening(socket)) {
                    throw new AlreadyRunning(socket);
                }
                Files.delete(socket);
            }
        } catch (IOException | RuntimeException e) {
            lock.close();
            throw e;
        }
        Token token = Token.generate();
        token.write(dir.tokenFile());
        // One event loop that both accepts and serves: no hand-off from an acceptor thread, and
        // the loop never blocks (see Session). Epoll where it loads, since its connections have
        // a descriptor on which a client's stdin is received; on NIO stdin comes as frames.
        boolean epoll = inherited.isEmpty() && Epoll.isAvailable();
        EventLoopGroup loops = epoll ? new EpollEventLoopGroup(EVENT_LOOPS, new DefaultThreadFactory("magus-server-epoll", true))
                : new NioEventLoopGroup(EVENT_LOOPS, new DefaultThreadFactory("magus-server-nio", true));
        ServerMeters meters = new ServerMeters(registry);
        // Before the socket is bound: the first connection may come before this method returns.
        HelloGate gate = new HelloGate(meters);
        IdleWatch idle = new IdleWatch(idleTimeout, System::currentTimeMillis);
        // Made before the socket is served: the first connection (systemd's, which started this
        // server, is waiting already) may be accepted before the bind has returned.
        MagusServer self = new MagusServer(dir, orchestrator, host, meters, gate, token, loops, settings, idle, lock, inherited);
        try {
            ServerBootstrap b = new ServerBootstrap().group(loops)
                    .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(LOW_WATER, HIGH_WATER))
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            self.connected(ch);
                        }
                    });
            if (inherited.isPresent()) {
                // Bound and listening already (systemd's): registered, it accepts; never bound again.
                ServerChannel passed = inherited.get().channel();
                self.server = b.channelFactory(() -> passed).register().syncUninterruptibly().channel();
            } else {
                b.channel(epoll ? EpollServerDomainSocketChannel.class : NioServerDomainSocketChannel.class);
                self.server = b.bind(epoll ? new DomainSocketAddress(socket.toFile()) : UnixDomainSocketAddress.of(socket))
                        .syncUninterruptibly().channel();
            }
        } catch (RuntimeException e) {
            loops.shutdownGracefully(0, 5, TimeUnit.SECONDS);
            Files.deleteIfExists(dir.tokenFile());
            lock.close();
            throw new IOException("cannot listen on " + socket + ": " + e.getMessage(), e);
        }
        self.stopWhenIdle();
        return self;
    }

    /**
     * Checks, when the idle timeout has passed with no connection, whether it still has: then
     * the server stops (off the event loop, as a client's stop does). A connection in between
     * leaves the check to the moment it closes.
     */
    private void stopWhenIdle() {
        io.netty.util.concurrent.Future<?> before = idleCheck;
        if (before != null) {
            before.cancel(false);
        }
        idle.remainingMillis().ifPresent(left -> idleCheck = loops.next().schedule(() -> {
            if (idle.expired()) {
                System.out.println("magus server stopping: no connection for " + idle.timeout().spelling()
                        + " (its idle timeout)");
                System.out.flush();
                Schedulers.boundedElastic().schedule(this::close);
            } else if (idle.connections() == 0) {
                stopWhenIdle();
            }
        }, left, TimeUnit.MILLISECONDS));
    }

    /** What {@code magus server status} shows; the query's own connection does not restart the idle count. */
    private Frame.Status status(io.netty.channel.Channel query) {
        query.attr(ACTIVITY).set(STATUS_ONLY);
        return new Frame.Status(ProcessHandle.current().pid(), meters.counters(), metrics, Optional.of(new Frame.Idle(
                idle.timeout().value().toMillis(), idle.stopsAt(1).orElse(0), idle.connections() - 1)));
    }

    /**
     * A new connection, on its event loop: counted for the idle timeout, held to its hello
     * ({@link HelloGate}), then its frames go to a {@link Session} of its own.
     */
    private void connected(Channel ch) {
        idle.opened();
        ch.closeFuture().addListener(f -> {
            if (idle.closed(!STATUS_ONLY.equals(ch.attr(ACTIVITY).get()))) {
                stopWhenIdle();
            }
        });
        gate.admit(ch);
        meters.connection();
        Session session = new Session(ch, token, runTokens, dir.socket(), orchestrator, host, meters, lines, grammar,
                this::status, gate::authenticated, s -> {
                    // Off the event loop: stopping waits for the loops to stop.
                    Schedulers.boundedElastic().schedule(this::close);
                    return new Frame.Stopping();
                });
        sessions.add(session);
        ch.pipeline().addLast("magus-frames", gate.decoder()).addLast("magus-session", new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                try {
                    session.onFrame(ByteBufUtil.getBytes((ByteBuf) msg));
                } finally {
                    ReferenceCountUtil.release(msg);
                }
            }

            @Override
            public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                session.writabilityChanged();
                ctx.fireChannelWritabilityChanged();
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) {
                session.writabilityChanged();
                sessions.remove(session);
                session.disconnected();
                ctx.fireChannelInactive();
            }

            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                // A connection that broke (reset, a frame the decoder refused): it ends, and its run with it.
                ctx.close();
            }
        });
    }

    /** Bytes written to the live connections and not yet sent, for tests of the back-pressure. */
    long pendingBytes() {
        long sum = 0;
        for (Session s : sessions) {
            sum += s.pendingBytes();
        }
        return sum;
    }

    /**
     * Whether every live connection is served on the event loop that accepted it (no hand-off
     * from an acceptor thread), for tests; false with no live connection.
     */
    boolean connectionsOnAcceptingLoop() {
        io.netty.channel.EventLoop acceptor = server.eventLoop();
        return !sessions.isEmpty() && sessions.stream().allMatch(s -> s.eventLoop() == acceptor);
    }

    /** Says, in {@code magus server status}, that this server's scrape is at {@code address} ({@code host:port}). */
    public void servesMetricsAt(String address) {
        metrics = Optional.of(address);
    }

    public Path socket() {
        return dir.socket();
    }

    /** The token, for a client in this process (tests) and a nested magus's {@code MAGUS_PROC_TOKEN}. */
    public String token() {
        return token.text();
    }

    /** Waits until the server has stopped ({@link #close()} or a client's stop). */
    public void awaitStop() throws InterruptedException {
        stopped.await();
    }

    /** Stops listening, removes the socket and the token; runs still going are not waited for. */
    @Override
    public void close() {
        if (stopped.getCount() == 0) {
            return;
        }
        try {
            // The token first: Netty unlinks the socket when it closes the listening channel, and
            // `magus server stop` returns once the socket is gone; a token deleted after that
            // would outlive the server it was for. A client that finds no token now runs its
            // work itself, as with no server.
            Files.deleteIfExists(dir.tokenFile());
        } catch (IOException e) {
            // deleted again below; its failure is reported there
        }
        if (inherited.isPresent()) {
            // systemd's socket stays where it is, listening, to start the next server.
            inherited.get().release();
        } else if (server != null) {
            // Bounded: the loops are shut down below anyway.
            server.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        // No quiet period (the default waits 2 s for tasks that never come): the process ends sooner.
        loops.shutdownGracefully(0, 5, TimeUnit.SECONDS).awaitUninterruptibly(6, TimeUnit.SECONDS);
        try {
            Files.deleteIfExists(dir.tokenFile());
            if (inherited.isEmpty()) {
                Files.deleteIfExists(dir.socket());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            try {
                lock.close(); // and its lock with it
            } catch (IOException e) {
                // the process ends soon, and the lock with it
            }
            stopped.countDown();
        }
    }

    /** The lock on {@code file}, or null when another server (in this process or another) holds it. */
    private static FileLock lockOrNull(FileChannel file) throws IOException {
        try {
            return file.tryLock();
        } catch (OverlappingFileLockException e) {
            return null;
        }
    }

    /** Whether {@code socket} is one a server answers on. */
    public static boolean running(Path socket) {
        return ServerClient.listening(socket);
    }
}
