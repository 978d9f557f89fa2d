package dev.magus.server.client;

import dev.magus.events.Echo;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code bin/magus run} when a server is running: a forwarding client that loads none of
 * Reactor, Netty, picocli, SnakeYAML, JNA or Jackson (issue 15: its start is the whole cost
 * of a forwarded run). It speaks the frames of {@link dev.magus.server.protocol.Frame} over the
 * JDK's own Unix-domain {@link SocketChannel}, with {@link MiniJson} for the control frames:
 * the child's bytes go to descriptors 1 and 2 as they arrive, diagnostics are printed as the
 * full command line prints them, SIGINT, SIGTERM and SIGHUP are forwarded to the child's group,
 * stdin with {@code --stdin}, and the exit status is the run's.
 *
 * <p>Whatever it cannot do itself it hands, in this same process, to the full command line
 * (the {@code magus.main} property, which bin/magus sets): a command that is not a plain run
 * ({@link FastArgs}), no socket or no token, a server that refuses this client or declines the
 * run (its workspace is weaker than this client's mode). Nothing of the run has started then.
 * A refusal or a decline, which this client has already reported, goes on as {@code run --local}:
 * the full command line would otherwise ask the server again and print the same line twice.
 * {@code magus-client} (src/main/c) is the native twin of this class, with the same rules.
 */
public final class FastClient {
    /** The frame kinds and the protocol version: {@link dev.magus.server.protocol.FrameCodec}'s. */
    private static final int VERSION = 2;
    private static final byte JSON = 0;
    private static final byte STDOUT = 1;
    private static final byte STDERR = 2;
    private static final byte STDIN = 3;
    private static final int MAX_FRAME = 16 * 1024 * 1024;
    /** HumanLines' refusal codes: their line names where the refused value came from. */
    private static final Set<String> REFUSALS = Set.of("MGS2004", "MGS2010", "MGS2011", "MGS2012");
    private static final int MAX_MESSAGE = 1000;
    /**
     * {@link #forward}'s answer when the server refused this client or declined the run, and
     * this client has said so: the run goes to the full command line as {@code run --local},
     * so that it neither asks the server a second time nor prints the line twice.
     */
    static final int HERE = -1;

    private final SocketChannel channel;
    private final DataInputStream in;
    private final PrintStream lines = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);

    private FastClient(SocketChannel channel) {
        this.channel = channel;
        // Buffered: DataInputStream reads a frame's length a byte at a time, one read(2) each
        // through the channel's stream (5 system calls a frame, now about one). A read returns
        // what has arrived, so nothing waits for the buffer to fill.
        this.in = new DataInputStream(new BufferedInputStream(Channels.newInputStream(channel), 64 * 1024));
    }

    public static void main(String[] jvmArgs) throws Throwable {
        // The bytes the caller wrote, where the JVM could not decode them (RawBytes).
        String[] args = dev.magus.events.RawBytes.ofThisProcess(jvmArgs);
        Optional<FastArgs> run = FastArgs.parse(args);
        if (run.isPresent()) {
            Optional<Integer> status = forward(run.get());
            if (status.isPresent() && status.get() == HERE) {
                full(local(args));
                return;
            }
            if (status.isPresent()) {
                System.exit(status.get());
            }
        }
        full(args);
    }

    /** {@code run --local ...}: the same run, which the full command line then keeps in this process. */
    static String[] local(String[] args) {
        String[] out = new String[args.length + 1];
        out[0] = args[0];
        out[1] = "--local";
        System.arraycopy(args, 1, out, 2, args.length - 1);
        return out;
    }

    /** The full command line, in this process: nothing of this client's is left running. */
    private static void full(String[] args) throws Throwable {
        String main = System.getProperty("magus.main", "dev.magus.cli.Main");
        try {
            Class.forName(main).getMethod("main", String[].class).invoke(null, (Object) args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /**
     * The run's exit status when the server ran it; {@link #HERE} when it refused or declined
     * (said on stderr); empty when the full command line must decide.
     */
    static Optional<Integer> forward(FastArgs asked) {
        // A closed standard input is the child's /dev/null, never the JVM's class image (StandardInput).
        FastArgs run = asked.stdin() && StandardInput.closedAtStart() ? asked.withoutStdin() : asked;
        Map<String, String> env = System.getenv();
        long uid = uid();
        ServerLocation where = ServerLocation.find(env, uid);
        if (where.token().isEmpty() || !Files.exists(where.socket(), LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        FastClient client;
        try {
            where.dir().check(uid);
            SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
            try {
                c.connect(UnixDomainSocketAddress.of(where.socket()));
            } catch (IOException e) {
                c.close();
                return Optional.empty(); // a stale socket: nobody answers
            }
            client = new FastClient(c);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
        try (SocketChannel c = client.channel) {
            return client.run(run, where.token().get(), env);
        } catch (IOException e) {
            // The run may have started: it is not run a second time here.
            client.lines.println("magus: lost the magus server in the middle of the run: " + e.getMessage());
            return Optional.of(125);
        }
    }

    private Optional<Integer> run(FastArgs run, String token, Map<String, String> env) throws IOException {
        StringBuilder hello = new StringBuilder("{\"type\":\"hello\",\"version\":").append(VERSION).append(",\"token\":");
        send(JSON, MiniJson.quote(hello, token).append('}'));
        // The run right behind the hello, without waiting for the welcome: the server reads nothing
        // after a hello it refuses, and the socket directory was checked to be this user's. A server
        // that refused has closed already; its answer is still there to read.
        IOException unsent = null;
        try {
            send(JSON, submit(run, env));
        } catch (IOException e) {
            unsent = e;
        }
        Map<String, Object> answer;
        try {
            answer = control(read());
        } catch (IOException e) {
            // Closed before its welcome (a server stopping for its idle timeout as this client
            // connected): it ran nothing, and the full command line finds the server gone.
            return Optional.empty();
        }
        if ("refused".equals(answer.get("type"))) {
            lines.println("magus: the magus server refused this client: " + answer.get("message") + "; running here instead");
            return Optional.of(HERE);
        }
        if (!"welcome".equals(answer.get("type")) || !Long.valueOf(VERSION).equals(answer.get("version"))) {
            lines.println("magus: the magus server speaks another protocol (" + answer.get("version") + ", this client "
                    + VERSION + "); running here instead");
            return Optional.of(HERE);
        }
        if (unsent != null) {
            throw unsent;
        }
        OutputStream out = new FileOutputStream(FileDescriptor.out);
        OutputStream err = new FileOutputStream(FileDescriptor.err);
        boolean first = true;
        while (true) {
            byte[] frame = read();
            if (frame[0] == STDOUT) {
                out = write(out, frame);
            } else if (frame[0] == STDERR) {
                err = write(err, frame);
            } else if (frame[0] == JSON) {
                Map<String, Object> f = control(frame);
                Object type = f.get("type");
                if ("declined".equals(type)) {
                    // None for a run from inside a forwarded run: it runs here as it would have without a server.
                    if (!"".equals(f.get("message"))) {
                        lines.println("magus: " + f.get("message"));
                    }
                    return Optional.of(HERE);
                } else if ("refused".equals(type)) {
                    lines.println("magus: the magus server refused this client: " + f.get("message") + "; running here instead");
                    return Optional.of(HERE);
                } else if ("exit".equals(type)) {
                    return Optional.of(status(f.get("status")));
                } else if ("event".equals(type) && f.get("event") instanceof Map<?, ?> e) {
                    diagnostic(e, run.verbose());
                }
            }
            if (first) {
                // Only now: a declined run goes to the full command line with its stdin unread.
                first = false;
                forwardSignals();
                if (run.stdin()) {
                    Thread t = new Thread(new Runnable() {
                        @Override
                        public void run() {
                            copyStdin();
                        }
                    }, "magus-client-stdin");
                    t.setDaemon(true);
                    t.start();
                }
            }
        }
    }

    /** The run frame's JSON, as {@code FrameCodec} reads it. */
    static StringBuilder submit(FastArgs run, Map<String, String> env) {
        StringBuilder b = new StringBuilder("{\"type\":\"run\",\"argv\":[");
        for (int k = 0; k < run.command().size(); k++) {
            MiniJson.quote(b.append(k == 0 ? "" : ","), run.command().get(k));
        }
        MiniJson.quote(b.append("],\"cwd\":"), Path.of("").toAbsolutePath().toString());
        object(b.append(",\"env\":"), env);
        object(b.append(",\"set\":"), run.set());
        b.append(",\"unset\":[");
        for (int k = 0; k < run.unset().size(); k++) {
            MiniJson.quote(b.append(k == 0 ? "" : ","), run.unset().get(k));
        }
        b.append(']');
        if (run.sandbox().isPresent()) {
            MiniJson.quote(b.append(",\"sandbox\":"), run.sandbox().get());
        }
        array(b, "allow", run.allow());
        array(b, "pass", run.pass());
        array(b, "allowHost", run.allowHosts());
        if (run.op().isPresent()) {
            MiniJson.quote(b.append(",\"op\":"), run.op().get());
        }
        if (run.target().isPresent()) {
            MiniJson.quote(b.append(",\"target\":"), run.target().get());
        }
        return b.append(",\"stdin\":").append(run.stdin()).append(",\"outputEvents\":false}");
    }

    /** {@code ,"name":[...]}, or nothing when empty (as the full client's codec writes it). */
    private static void array(StringBuilder b, String name, List<String> values) {
        if (values.isEmpty()) {
            return;
        }
        b.append(",\"").append(name).append("\":[");
        for (int k = 0; k < values.size(); k++) {
            MiniJson.quote(b.append(k == 0 ? "" : ","), values.get(k));
        }
        b.append(']');
    }

    private static void object(StringBuilder b, Map<String, String> map) {
        b.append('{');
        boolean first = true;
        for (Map.Entry<String, String> e : map.entrySet()) {
            MiniJson.quote(b.append(first ? "" : ","), e.getKey()).append(':');
            MiniJson.quote(b, e.getValue());
            first = false;
        }
        b.append('}');
    }

    /**
     * The exit frame's status: an integer from 0 to 255, as a process status is. Anything else
     * (a hostile or broken server: not a number, a fraction, out of range, where a cast or
     * exit()'s low byte could make 256 a success) is said and is 125, never a success;
     * magus-client.c's status_of is the same rule.
     */
    private int status(Object s) {
        double d = s instanceof Number n ? n.doubleValue() : Double.NaN;
        if (!(d >= 0 && d <= 255 && d == Math.rint(d))) {
            lines.println("magus: the magus server sent an exit status that is not one; exiting 125");
            return 125;
        }
        return (int) d;
    }

    /** A stream the reader went away from is dropped, as a local run's pass-through drops it; the run goes on. */
    private static OutputStream write(OutputStream o, byte[] frame) {
        try {
            o.write(frame, 1, frame.length - 1);
            return o;
        } catch (IOException e) {
            return OutputStream.nullOutputStream();
        }
    }

    /** As the full command line's HumanLines prints a diagnostic (debug ones and benign probes only with -v). */
    private void diagnostic(Map<?, ?> e, boolean verbose) {
        if (!"diagnostic".equals(e.get("type"))) {
            return;
        }
        Object details = e.get("details");
        boolean benign = details instanceof Map<?, ?> d && "benign".equals(d.get("class"));
        if (!verbose && ("debug".equals(e.get("severity")) || benign)) {
            return;
        }
        String code = String.valueOf(e.get("code"));
        String layer = String.valueOf(e.get("layer"));
        String src = e.get("source") instanceof String x ? x : "";
        String source = REFUSALS.contains(code) && !src.isEmpty() ? Echo.visible(src) + ": " : "";
        String message = Echo.visible(e.get("message") instanceof String x ? x : "");
        if (message.length() > MAX_MESSAGE) {
            message = message.substring(0, Character.isHighSurrogate(message.charAt(MAX_MESSAGE - 1)) ? MAX_MESSAGE - 1 : MAX_MESSAGE)
                    + "…";
        }
        String shownLayer = layer.equals("kernel") || layer.equals("audit") ? " [" + layer + "]" : "";
        lines.println("magus: " + code + " " + source + message + shownLayer + "; see 'magus explain " + code + "'");
    }

    @SuppressWarnings("restriction")
    private void forwardSignals() {
        String[] names = {"INT", "TERM", "HUP"};
        int[] numbers = {2, 15, 1};
        for (int k = 0; k < names.length; k++) {
            int number = numbers[k];
            try {
                // A class, not a lambda: no bootstrap at the start of every forwarded run.
                sun.misc.Signal.handle(new sun.misc.Signal(names[k]), new sun.misc.SignalHandler() {
                    @Override
                    public void handle(sun.misc.Signal sig) {
                        try {
                            send(JSON, new StringBuilder("{\"type\":\"signal\",\"signal\":").append(number).append('}'));
                        } catch (IOException e) {
                            // the run is over or the server gone
                        }
                    }
                });
            } catch (IllegalArgumentException e) {
                // the JVM keeps this signal for itself here
            }
        }
    }

    private void copyStdin() {
        byte[] buf = new byte[16 * 1024];
        try (InputStream stdin = new FileInputStream(FileDescriptor.in)) {
            while (true) {
                int n;
                try {
                    n = stdin.read(buf);
                } catch (IOException e) {
                    // An input that cannot be read (a directory, a terminal hung up) ends as it does for
                    // a local run: the child reads its end, rather than waiting for bytes that never come.
                    n = -1;
                }
                if (n < 0) {
                    break;
                }
                if (n > 0) {
                    send(STDIN, buf, n);
                }
            }
            send(JSON, new StringBuilder("{\"type\":\"stdin-end\"}"));
        } catch (IOException e) {
            // the connection is gone: the run ends with it
        }
    }

    private void send(byte kind, CharSequence json) throws IOException {
        byte[] b = json.toString().getBytes(StandardCharsets.UTF_8);
        send(kind, b, b.length);
    }

    private synchronized void send(byte kind, byte[] body, int len) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(5 + len);
        b.putInt(len + 1).put(kind).put(body, 0, len).flip();
        while (b.hasRemaining()) {
            channel.write(b);
        }
    }

    /** The next frame: its kind, then its body. */
    private byte[] read() throws IOException {
        int n;
        try {
            n = in.readInt();
        } catch (EOFException e) {
            throw new EOFException("the magus server closed the connection");
        }
        if (n <= 0 || n > MAX_FRAME) {
            throw new IOException("a frame of " + n + " bytes from the server");
        }
        byte[] frame = new byte[n];
        in.readFully(frame);
        return frame;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> control(byte[] frame) throws IOException {
        if (frame[0] != JSON) {
            throw new IOException("the magus server sent bytes where a control frame belongs");
        }
        try {
            Object v = MiniJson.parse(new String(frame, 1, frame.length - 1, StandardCharsets.UTF_8));
            if (v instanceof Map<?, ?> m) {
                return (Map<String, Object>) m;
            }
        } catch (RuntimeException e) {
            throw new IOException("a control frame that is not JSON: " + e.getMessage());
        }
        throw new IOException("a control frame that is not a JSON object");
    }

    private static long uid() {
        try {
            return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

}
