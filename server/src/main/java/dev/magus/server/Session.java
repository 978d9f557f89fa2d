package dev.magus.server;

import dev.magus.env.MagusVariables;
import dev.magus.events.MagusEnv;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.RunEvent;
import dev.magus.events.SandboxException;
import dev.magus.landlock.launch.InputDescriptors;
import dev.magus.orchestrator.run.Host;
import dev.magus.orchestrator.Orchestrator;
import dev.magus.orchestrator.run.Passthrough;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.Stdin;
import dev.magus.orchestrator.run.Submission;
import dev.magus.events.Mode;
import dev.magus.server.protocol.Frame;
import dev.magus.server.protocol.FrameCodec;
import dev.magus.server.socket.Token;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection: a hello whose token is checked before anything else is read, then one
 * request (a run, a status query or a stop). Frames arrive on the connection's event loop,
 * which this class never blocks: reading {@code magus.yaml} for the mode rules, and then the
 * run itself, run on one of the orchestrator's I/O threads ({@link Orchestrator#execute}), and
 * only those threads ever wait for a slow client: the child's bytes wait for room ({@link Out});
 * the control frames (magus's lines, the exit) are handed to {@link FrameWrites} without waiting.
 */
final class Session {
    private static final Logger LOG = LoggerFactory.getLogger(Session.class);

    private enum State { HELLO, READY, RUNNING, DONE }

    /**
     * Every connection's welcome, the same bytes each time: encoded once into a direct buffer that
     * no write releases or changes, each connection writing a duplicate of it (its own indices over
     * the same read-only bytes), so the event loop neither encodes it nor copies it off the heap.
     */
    private static final ByteBuf WELCOME = Unpooled.unreleasableBuffer(Unpooled.directBuffer(16)
            .writeBytes(FrameCodec.encode(new Frame.Welcome(Frame.VERSION))).asReadOnly());

    private final Channel channel;
    private final Token token;
    private final Orchestrator orchestrator;
    private final Host serverHost;
    private final ServerMeters meters;
    private final Function<Session, Frame.ToClient> stop;
    private final Path socket;
    /** Told when the hello carried the token: the connection is no longer held to the hello's limits. */
    private final java.util.function.Consumer<Channel> onHello;
    private final RunTokens runTokens;
    private final RunLines lines;
    private final RunGrammar grammar;
    /** The run this connection asked for, once it is known: its lines are rendered from it. */
    private volatile ServedRun served;
    /** The status reply: the counters, the scrape's address, the idle timeout. */
    private final Function<Channel, Frame.Status> status;
    /** This connection's number, which a run token minted for its run names. */
    private final long serial = SERIALS.incrementAndGet();
    private static final java.util.concurrent.atomic.AtomicLong SERIALS = new java.util.concurrent.atomic.AtomicLong();

    /** The run this connection's hello said it comes from (by its run token); empty for the server's token. */
    private volatile Optional<RunTokens.Owner> from = Optional.empty();
    /** The token minted for this connection's run, revoked when the connection ends. */
    private volatile String minted;

    private volatile State state = State.HELLO;
    private final StdinQueue stdin = new StdinQueue();
    /** Whether the client's command offered its standard input as a descriptor. */
    private volatile boolean offersFd;
    /** Whether the client's command said its standard input is a terminal. */
    private volatile boolean stdinTerminal;
    /** The descriptor the client passed for its run's standard input, closed once the run has ended (-1: none). */
    private final java.util.concurrent.atomic.AtomicInteger passedStdin = new java.util.concurrent.atomic.AtomicInteger(-1);
    /** How long the server waits for a descriptor it asked for: the client sends it as soon as it reads the answer. */
    static final long STDIN_FD_WITHIN_MS = 10_000;
    private volatile Run run;
    /** The client's approver, when its run asks ({@code --ask}); null otherwise, and a decision frame is then a protocol error. */
    private volatile ClientAsks asks;
    private volatile boolean ended;
    private volatile boolean disconnected;

    Session(Channel channel, Token token, RunTokens runTokens, Path socket, Orchestrator orchestrator, Host serverHost,
            ServerMeters meters, RunLines lines, RunGrammar grammar, Function<Channel, Frame.Status> status,
            java.util.function.Consumer<Channel> onHello, Function<Session, Frame.ToClient> stop) {
        this.lines = lines;
        this.grammar = grammar;
        this.socket = socket;
        this.status = status;
        this.runTokens = runTokens;
        this.onHello = onHello;
        this.channel = channel;
        this.token = token;
        this.orchestrator = orchestrator;
        this.serverHost = serverHost;
        this.meters = meters;
        this.stop = stop;
        this.writes = new FrameWrites(channel, this::writabilityChanged);
    }

    /** The run's frames (its events, the child's bytes, the exit), in order, coalesced per turn of the event loop. */
    private final FrameWrites writes;

    /** One frame from the client, on the event loop. */
    void onFrame(byte[] bytes) {
        Frame frame;
        try {
            frame = FrameCodec.decode(bytes);
        } catch (FrameCodec.ProtocolException e) {
            refuse(state == State.HELLO ? "MGS2011" : "protocol", state == State.HELLO
                    ? "the first frame must be the hello carrying the server's token (" + e.getMessage() + ")"
                    : "a malformed frame: " + e.getMessage());
            return;
        }
        switch (state) {
            case HELLO -> hello(frame);
            case READY -> request(frame);
            case RUNNING -> duringRun(frame);
            case DONE -> {
                // the answer is on its way and the connection closing; nothing more is read
            }
        }
    }

    private void hello(Frame frame) {
        Optional<RunTokens.Owner> owner = frame instanceof Frame.Hello h && !token.matches(h.token())
                ? runTokens.owner(h.token()) : Optional.empty();
        if (!(frame instanceof Frame.Hello h) || !token.matches(h.token()) && owner.isEmpty()) {
            // Whatever else the frame says is not read: without the token there is no request.
            refuse("MGS2011", frame instanceof Frame.Hello h && h.token().isEmpty()
                    ? "the request carries no token; read it from the token file beside the socket"
                    : frame instanceof Frame.Hello ? "the request carries a wrong token (the server was restarted, or"
                            + " the token is not this server's)"
                            : "the request does not start with the hello carrying the token");
            return;
        }
        if (h.version() != Frame.VERSION) {
            refuse("protocol", "this magus server speaks protocol version " + Frame.VERSION + " and the client "
                    + h.version() + "; use the same magus for both (magus server stop, then start it again)");
            return;
        }
        from = owner;
        state = State.READY;
        onHello.accept(channel);
        channel.writeAndFlush(WELCOME.duplicate(), channel.voidPromise());
    }

    private void refuse(String code, String message) {
        state = State.DONE;
        meters.refusal(code);
        if (code.equals("MGS2011")) {
            LOG.warn("code=MGS2011 layer=server msg=\"{}\"", message);
        } else {
            LOG.warn("code={} layer=server msg=\"{}\"", code, message);
        }
        sendAndClose(new Frame.Refused(code, (code.equals("MGS2011") ? "MGS2011: " : "") + message));
    }

    private void request(Frame frame) {
        if (from.isPresent() && frame instanceof Frame.Command) {
            nested();
        } else if (from.isPresent()) {
            refuse("MGS2011", "a run's token only forwards the runs started inside that run; "
                    + frame.getClass().getSimpleName() + " needs the server's token");
        } else if (frame instanceof Frame.Command c) {
            beforeRun(() -> command(c));
        } else if (frame instanceof Frame.StatusQuery) {
            state = State.DONE;
            sendAndClose(status.apply(channel));
        } else if (frame instanceof Frame.Stop) {
            state = State.DONE;
            sendAndClose(stop.apply(this));
        } else {
            refuse("protocol", "expected a run, status or stop request, got " + frame.getClass().getSimpleName());
        }
    }

    /**
     * {@code work} (a run's start) on magus's I/O threads, where the run then stays
     * (Orchestrator#submitHere): one hand-off between threads per run, not two.
     */
    private void beforeRun(Runnable work) {
        state = State.RUNNING;
        orchestrator.execute(() -> {
            try {
                work.run();
            } catch (RuntimeException e) {
                // Never a client left waiting: whatever broke before its run ends the connection with a line.
                LOG.warn("code=protocol layer=server msg=\"a forwarded run broke before it started: {}\"", e.toString());
                if (run == null) {
                    refuse("protocol", "the server could not start this run: " + e);
                }
            }
        });
    }

    /**
     * A run asked for from inside a forwarded run (its recursive magus said hello with that
     * run's token). Started here it would run outside the domain of the run it comes from,
     * with whatever that run's own command line grants, so a confined run could hand itself
     * any path. Declined, with no line: the client runs it itself, inside the run it comes
     * from, whose domain then caps it as Landlock domains stack, and whose mode is its floor
     * ({@code MAGUS_SANDBOX}), as for any nested run.
     */
    private void nested() {
        meters.forwarded("declined");
        state = State.DONE;
        sendAndClose(new Frame.Declined("nested", "nested", ""));
    }

    private void duringRun(Frame frame) {
        if (frame instanceof Frame.StdinData d) {
            stdin.offer(d.bytes());
        } else if (frame instanceof Frame.StdinEnd) {
            stdin.end();
        } else if (frame instanceof Frame.Signal sig) {
            Run r = run;
            if (r != null && !ended) {
                r.signal(sig.signal());
            }
        } else if (frame instanceof Frame.Decision d && asks != null) {
            asks.decided(d);
        } else {
            refuse("protocol", (frame instanceof Frame.Decision ? "a decision for a run that does not ask (no --ask)"
                    : "expected stdin, a signal or a decision during a run, got " + frame.getClass().getSimpleName()));
            disconnected();
        }
    }

    /**
     * A client's words, parsed by the command line's own model: a run is served as a parsed one
     * is, announced to the client ({@link Frame.Accepted}) only once it starts; an answer without a
     * run (help, a usage error, a refusal) is the command line's bytes and status; a command only
     * the client's process serves goes back to it.
     */
    private void command(Frame.Command c) {
        offersFd = c.stdinFd();
        stdinTerminal = c.stdinTerminal();
        RunGrammar.Parsed parsed = grammar.parse(c);
        if (parsed instanceof RunGrammar.Serve serve) {
            start(serve.run());
        } else if (parsed instanceof RunGrammar.Answer a) {
            meters.forwarded("answered");
            state = State.DONE;
            ended = true;
            java.util.List<Frame> frames = new java.util.ArrayList<>();
            if (a.out().length > 0) {
                frames.add(new Frame.Stdout(a.out()));
            }
            if (a.err().length > 0) {
                frames.add(new Frame.Stderr(a.err()));
            }
            frames.add(new Frame.Exit(a.status(), 0));
            sendAndClose(frames.toArray(Frame[]::new));
        } else {
            meters.forwarded("declined");
            state = State.DONE;
            sendAndClose(new Frame.Local(((RunGrammar.Local) parsed).message()));
        }
    }

    /**
     * The mode rules, then the run; on one of magus's I/O threads, since they read
     * {@code magus.yaml}, and the run's stages stay on it until the run ends. The client hears
     * {@link Frame.Accepted} right before the run starts.
     */
    private void start(ServedRun s) {
        served = s;
        boolean announced = false;
        Path cwd = Path.of(s.cwd());
        RunRequest request;
        Host host;
        try {
            if (!cwd.isAbsolute() || (s.argv().isEmpty() && s.target().isEmpty())) {
                refuse("protocol", "a run needs a command (or a target) and an absolute working directory");
                return;
            }
            // Resolved once, as the kernel walks it: the mode rules and the run's config read the same magus.yaml.
            cwd = cwd.toRealPath();
            ModeRules.Decision decision = ModeRules.decide(cwd, s.env(), s.sandbox(), orchestrator.services().workspaces());
            if (decision instanceof ModeRules.Decision.Decline d) {
                meters.forwarded("declined");
                state = State.DONE;
                sendAndClose(new Frame.Declined(d.client().spelling(), d.workspace().spelling(),
                        "the magus server runs " + cwd + " under sandbox mode " + d.workspace().spelling()
                                + ", weaker than this run's " + d.client().spelling() + "; running it here instead"));
                return;
            }
            Mode mode = ((ModeRules.Decision.Run) decision).mode();
            Host runHost = hostFor(s.env());
            Path serverState = serverHost.stateDir().dir();
            Path clientState = runHost.stateDir().dir();
            if (!clientState.equals(serverState)) {
                meters.forwarded("declined");
                state = State.DONE;
                sendAndClose(new Frame.Declined(mode.spelling(), mode.spelling(),
                        StateDirRule.declined(clientState, serverState)));
                return;
            }
            Optional<Diagnostic> unsafe = StateDirRule.unsafe(serverState, serverHost.uid());
            if (unsafe.isPresent()) {
                meters.forwarded("refused");
                refused(unsafe.get());
                return;
            }
            host = runHost;
            RunRequest.Builder b = RunRequest.builder(cwd, s.argv());
            s.set().forEach(b::set);
            s.unset().forEach(b::unset);
            // Parsed by the run's policy stage against cwd, the client's: a bad one is its MGS2004.
            s.allow().forEach(b::allow);
            s.pass().forEach(b::pass);
            // Resolved by the run's config stage against cwd, as a local run resolves them.
            s.op().ifPresent(b::op);
            s.target().ifPresent(b::target);
            s.allowHosts().forEach(b::allowHost);
            b.sandbox(mode);
            b.failOnDenial(s.failOnDenial());
            b.supervise(s.supervise());
            if (s.ask().isPresent()) {
                ClientAsks a = new ClientAsks(ask -> writes.write(Unpooled.wrappedBuffer(FrameCodec.encode(ask))),
                        s.ask().get());
                asks = a;
                if (disconnected) {
                    a.gone();
                }
                b.approver(a, s.ask().get());
            }
            Stdin in = s.stdin() ? new Stdin.Stream(stdin) : new Stdin.None();
            if (s.stdin() && offersFd && socketFd() >= 0) {
                // Announced here, before the request is built: the client answers with its descriptor.
                announced = true;
                in = passedStdin();
            }
            b.stdin(in);
            try {
                request = b.build();
            } catch (RuntimeException e) {
                closePassedStdin();
                throw e;
            }
        } catch (SandboxException e) {
            meters.forwarded("refused");
            refused(e.diagnostic());
            return;
        } catch (java.io.IOException e) {
            refuse("protocol", "cannot resolve the working directory " + cwd + ": " + e.getMessage());
            return;
        } catch (RuntimeException e) {
            // A working directory that is no path (a NUL in it), and the like: the client hears
            // why and the connection ends, rather than waiting for a run that never comes.
            refuse("protocol", "cannot run this request: " + e);
            return;
        }
        if (disconnected) {
            closePassedStdin();
            return;
        }
        meters.forwarded("started");
        if (!announced) {
            writes.write(Unpooled.wrappedBuffer(FrameCodec.encode(new Frame.Accepted(s.stdin()))));
        }
        if (s.verbose() && s.stdin() && stdinTerminal && passedStdin.get() < 0) {
            writes.write(stderrFrame("magus: your terminal reaches this run as a copy of what is typed, not as its own"
                    + " terminal (isatty(0) is false there): " + (offersFd
                    ? "this server cannot receive descriptors (it serves a socket systemd passed, or epoll does not load here)"
                    : "this client cannot pass descriptors (the native client can; or run it with --local)")));
        }
        lines.granted(s.allow(), cwd, host.home(), s.quiet()).forEach(l -> writes.write(stderrFrame(l)));
        // The run is this session's before its first stage; its stages then run on this thread.
        orchestrator.submitHere(Submission.of(request).withPassthrough(Passthrough.of(new Out(true), new Out(false)))
                .on(host).observedBy(this::event), r -> {
                    run = r;
                    // The child has its own copy of a passed descriptor once it started; ours goes with the run.
                    r.result().doFinally(sig -> closePassedStdin()).subscribe(x -> { }, e -> { });
                    if (disconnected) {
                        r.cancel();
                    }
                });
    }

    /** The connection's own descriptor, where the server can receive descriptors on it (the epoll transport); else -1. */
    private int socketFd() {
        return channel instanceof io.netty.channel.unix.UnixChannel u && u.fd().isOpen() ? u.fd().intValue() : -1;
    }

    /**
     * Tells the client its run is accepted and to pass its standard input, then receives it on
     * this thread (an I/O thread of the run's, which may wait). The event loop stops reading the
     * connection first, in the same task that writes the answer, so no frame read can take the
     * descriptor's byte (a read without room for descriptors would close it); it reads again
     * once the descriptor is here.
     *
     * @throws SandboxException MGS2004 when what came is no descriptor a child may read
     */
    private Stdin passedStdin() {
        ByteBuf accepted = Unpooled.wrappedBuffer(FrameCodec.encode(new Frame.Accepted(true, true)));
        java.util.concurrent.CompletableFuture<Void> asked = new java.util.concurrent.CompletableFuture<>();
        channel.eventLoop().execute(() -> {
            channel.config().setAutoRead(false);
            channel.writeAndFlush(accepted, channel.voidPromise());
            asked.complete(null);
        });
        InputDescriptors.Received got;
        try {
            asked.get(STDIN_FD_WITHIN_MS, java.util.concurrent.TimeUnit.MILLISECONDS);
            got = InputDescriptors.receive(socketFd(), STDIN_FD_WITHIN_MS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            got = new InputDescriptors.Received.Refused("the connection did not answer: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            got = new InputDescriptors.Received.Refused("interrupted");
        } finally {
            channel.config().setAutoRead(true);
        }
        if (got instanceof InputDescriptors.Received.Descriptor d) {
            passedStdin.set(d.fd());
            return new Stdin.Descriptor(d.fd());
        }
        if (got instanceof InputDescriptors.Received.Refused r) {
            LOG.warn("code=MGS2004 layer=server msg=\"refused the standard input a client passed: {}\"", r.why());
            throw new SandboxException(Diagnostic.of(Code.MGS2004,
                    "the standard input this client passed cannot be the run's: " + r.why(), "stdin",
                    Operation.NONE, Layer.POLICY, "client descriptor (SCM_RIGHTS)"));
        }
        return new Stdin.Stream(stdin); // the client sends it as frames after all
    }

    /**
     * Closes the descriptor the client passed, once; the child has its own copy. Only the run's
     * own thread before the run is submitted, and the run's end after, close it: never the event
     * loop, which could close it while the spawn is still to duplicate it.
     */
    private void closePassedStdin() {
        int fd = passedStdin.getAndSet(-1);
        if (fd >= 0) {
            InputDescriptors.close(fd);
        }
    }

    /**
     * The run's host: the server's, with the client's environment and home. Each forwarded run
     * gets its own, so one client's environment never reaches another run or the server.
     */
    private Host hostFor(Map<String, String> env) {
        String home = env.getOrDefault("HOME", "");
        return serverHost.withEnv(withPointers(env), home.startsWith("/") ? Path.of(home) : serverHost.home());
    }

    /**
     * The client's environment with this server's pointers ({@code MAGUS_SERVER_ADDRESS}, the
     * socket, and {@code MAGUS_PROC_TOKEN}: this run's own token, never the server's) in place
     * of any the client carried. The run's
     * environment stage withholds them from every child (MGS2008) except a recursive magus,
     * which gets them re-injected and so forwards its own runs here: a confined magus could
     * neither read the token file nor, without them, find the socket.
     */
    private Map<String, String> withPointers(Map<String, String> env) {
        Map<String, String> out = new java.util.HashMap<>(env);
        out.put(MagusEnv.SERVER_ADDRESS, socket.toString());
        String mine = minted;
        if (mine == null) {
            mine = runTokens.mint(serial);
            minted = mine;
        }
        out.put(MagusEnv.PROC_TOKEN, mine);
        return out;
    }

    /** What {@code e} sends the client: magus's own line for it, if any, and, last, the exit. */
    private void event(RunEvent e) {
        if (e instanceof RunEvent.Output) {
            return; // the child's bytes went as they were read
        }
        line(e).ifPresent(l -> writes.write(stderrFrame(l)));
        if (e instanceof RunEvent.Exited x) {
            ended = true;
            state = State.DONE;
            writes.writeLast(Unpooled.wrappedBuffer(FrameCodec.encode(new Frame.Exit(x.status(), x.signal()))));
        }
    }

    /**
     * The line a local run prints for {@code e}, if any. The pointers this server put into the
     * run's environment itself (its socket, the run's token) are its own business: their MGS2008
     * is never a line, since the same run with {@code --local} has no such pointers to withhold.
     */
    private Optional<String> line(RunEvent e) {
        ServedRun s = served;
        if (s == null) {
            return Optional.empty();
        }
        if (e instanceof RunEvent.Diag d) {
            Diagnostic diag = d.diagnostic();
            if (diag.code() == dev.magus.events.Code.MGS2008 && MagusVariables.PROC_POINTERS.contains(diag.subject())
                    && !s.env().containsKey(diag.subject())) {
                return Optional.empty();
            }
            return lines.diagnostic(diag, s.verbose(), s.quiet());
        }
        if (e instanceof RunEvent.Started st) {
            return lines.started(st, Path.of(s.cwd()), s.sandbox(), s.argv(), s.quiet());
        }
        return Optional.empty();
    }

    private ByteBuf stderrFrame(String line) {
        byte[] b = (line + "\n").getBytes(StandardCharsets.UTF_8);
        ByteBuf frame = channel.alloc().ioBuffer(5 + b.length);
        frame.writeInt(b.length + 1).writeByte(FrameCodec.STDERR).writeBytes(b);
        return frame;
    }

    /** A refusal before the run: its diagnostic, then the exit a local refusal has (125). */
    private void refused(Diagnostic d) {
        state = State.DONE;
        ended = true;
        ServedRun s = served;
        Optional<String> line = lines.diagnostic(d, s != null && s.verbose(), s != null && s.quiet());
        if (line.isPresent()) {
            sendAndClose(new Frame.Stderr((line.get() + "\n").getBytes(StandardCharsets.UTF_8)), new Frame.Exit(125, 0));
        } else {
            sendAndClose(new Frame.Exit(125, 0));
        }
    }

    /** The client went away (or broke the protocol): a run still going is cancelled and its group killed. */
    void disconnected() {
        disconnected = true;
        String mine = minted;
        if (mine != null) {
            runTokens.revoke(mine);
        }
        stdin.end();
        ClientAsks a = asks;
        if (a != null) {
            a.gone();
        }
        Run r = run;
        if (r != null && !ended) {
            r.cancel();
        }
    }

    /** Writes {@code frames}, in order and in one write (one array, not a composite of several), then closes the connection. */
    private void sendAndClose(Frame... frames) {
        byte[][] encoded = new byte[frames.length][];
        int total = 0;
        for (int i = 0; i < frames.length; i++) {
            encoded[i] = FrameCodec.encode(frames[i]);
            total += encoded[i].length;
        }
        byte[] all = encoded.length == 1 ? encoded[0] : new byte[total];
        if (encoded.length != 1) {
            int at = 0;
            for (byte[] f : encoded) {
                System.arraycopy(f, 0, all, at, f.length);
                at += f.length;
            }
        }
        channel.writeAndFlush(Unpooled.wrappedBuffer(all)).addListener(ChannelFutureListener.CLOSE);
    }

    /**
     * The connection's bytes not yet written to the socket, for tests: bounded by the
     * connection's high-water mark plus one read of each stream (see {@link Out}).
     */
    long pendingBytes() {
        io.netty.channel.ChannelOutboundBuffer b = channel.unsafe().outboundBuffer();
        return (b == null ? 0 : b.totalPendingWriteBytes()) + writes.queuedBytes();
    }

    /** The event loop this connection is served on, for tests. */
    io.netty.channel.EventLoop eventLoop() {
        return channel.eventLoop();
    }

    /** Netty says the connection became writable (or closed): the waiting pipe readers go on. */
    void writabilityChanged() {
        synchronized (writable) {
            writable.notifyAll();
        }
    }

    private final Object writable = new Object();

    /**
     * One of the child's streams, as frames, with back-pressure: above the connection's
     * high-water mark ({@link MagusServer#HIGH_WATER}) the run's pipe reader waits until the
     * client has read enough, so the child's pipe fills and the child waits, as it would on a
     * slow terminal. A slow client so costs at most that much memory, and only its own run
     * waits: every run has its own pipe readers, and the event loops never wait. Lines are not
     * lost meanwhile: the run's end waits for a pipe reader that still moves, however slowly.
     */
    private final class Out extends OutputStream {
        private final boolean stdout;

        Out(boolean stdout) {
            this.stdout = stdout;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            synchronized (writable) {
                // The connection's buffer and the frames still on their way to it, together under the high-water mark.
                while (channel.isActive() && (!channel.isWritable() || writes.queuedBytes() >= channel.bytesBeforeUnwritable())) {
                    try {
                        writable.wait(100); // timed: a missed wake-up costs 100 ms, never a hung run
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new java.io.InterruptedIOException("waiting for the client");
                    }
                }
            }
            if (!channel.isActive()) {
                throw new IOException("the client went away");
            }
            // Framed straight into one of the connection's I/O buffers: one copy of the child's bytes.
            ByteBuf frame = channel.alloc().ioBuffer(5 + len);
            frame.writeInt(len + 1).writeByte(stdout ? FrameCodec.STDOUT : FrameCodec.STDERR).writeBytes(b, off, len);
            writes.write(frame);
        }
    }
}
