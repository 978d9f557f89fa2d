package dev.magus.server.client;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
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
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * {@code bin/magus run} (and {@code target}) when a server is running: the Java forwarding
 * client, which loads none of Reactor, Netty, picocli, SnakeYAML, JNA or Jackson's databind (its
 * start is the whole cost of a forwarded run). It reads no option: it sends its words, working
 * directory and environment ({@link dev.magus.server.protocol.Frame.Command}) over the JDK's
 * Unix-domain {@link SocketChannel}, writes the child's bytes (magus's lines among them) to
 * descriptors 1 and 2, forwards SIGINT, SIGTERM and SIGHUP and stdin, and exits with the run's status.
 *
 * <p>Whatever the server does not serve goes, in this same process, to the full command line
 * (the {@code magus.main} property, which bin/magus sets): another command, no socket or no
 * token, a command only that process serves (as given), a server that refuses this client or
 * declines the run (as {@code run --local}, said first). Nothing of the run has started then.
 * {@code magus-client} (src/main/c) is the native twin of this class, with the same rules.
 */
public final class FastClient {
    /** The frame kinds and the protocol version: {@link dev.magus.server.protocol.FrameCodec}'s. */
    private static final int VERSION = 5;
    private static final byte JSON = 0;
    private static final byte STDOUT = 1;
    private static final byte STDERR = 2;
    private static final byte STDIN = 3;
    private static final int MAX_FRAME = 16 * 1024 * 1024;
    /**
     * {@link #forward}'s answer when the server refused this client or declined the run, and
     * this client has said so: the run goes to the full command line as {@code run --local},
     * so that it neither asks the server a second time nor prints the line twice.
     */
    static final int HERE = -1;
    /** {@link #forward}'s answer when the full command line runs the words as they were given. */
    static final int AS_GIVEN = -2;
    /**
     * The control frames' JSON. A surrogate pair is written as its UTF-8 and a lone surrogate (a
     * byte of an argument that was not UTF-8, {@code RawBytes}) escaped, which the server gives the
     * child back as that byte; in UTF-8 it would have been '?'.
     */
    private static final JsonFactory FACTORY = JsonFactory.builder()
            .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8).build();

    private final SocketChannel channel;
    private final DataInputStream in;
    private final PrintStream lines = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
    /** Where a forwarded {@code --ask} asks, opened at its first ask. */
    private TerminalPrompt prompt;
    /** Signals forwarded so far: one during a question gives it up (denied), as the person wants the run to stop. */
    private volatile int signals;

    private FastClient(SocketChannel channel) {
        this.channel = channel;
        // Buffered: DataInputStream reads a frame's length a byte at a time, one read(2) each.
        // A read returns what has arrived, so nothing waits for the buffer to fill.
        this.in = new DataInputStream(new BufferedInputStream(Channels.newInputStream(channel), 64 * 1024));
    }

    public static void main(String[] jvmArgs) throws Throwable {
        // The bytes the caller wrote, where the JVM could not decode them (RawBytes).
        String[] args = dev.magus.events.RawBytes.ofThisProcess(jvmArgs);
        // Only run and target are the server's; their words are its to read (this client reads none).
        if (args.length > 0 && (args[0].equals("run") || args[0].equals("target"))) {
            int status = forward(args);
            if (status == HERE) {
                full(local(args));
                return;
            }
            if (status >= 0) {
                System.exit(status);
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
     * The run's exit status when the server ran it (or answered it); {@link #HERE} when it refused
     * or declined (said on stderr); {@link #AS_GIVEN} when the full command line must run it.
     */
    static int forward(String[] args) {
        // Sent as the process has it: a byte that is not UTF-8 in a variable reaches the child as itself.
        Map<String, String> env = dev.magus.events.RawBytes.environmentOfThisProcess(System.getenv());
        long uid = uid();
        if (dev.magus.server.lifecycle.AutoStart.off(env)) {
            return AS_GIVEN; // MAGUS_SERVER=off: every run here, as with --local
        }
        ServerLocation where = ServerLocation.find(env, uid);
        if (!Files.exists(where.socket(), LinkOption.NOFOLLOW_LINKS)) {
            return nobodyThere(where, env, uid);
        }
        Optional<String> token = where.token();
        if (token.isEmpty()) {
            // A socket without a token: a socket-activated server starts when connected to.
            token = dev.magus.server.socket.Activation.awaitToken(where.socket(), where.dir().tokenFile(),
                    dev.magus.server.socket.Activation.WITHIN);
            if (token.isEmpty()) {
                return nobodyThere(where, env, uid);
            }
        }
        FastClient client;
        try {
            where.dir().check(uid);
            SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
            try {
                c.connect(UnixDomainSocketAddress.of(where.socket()));
            } catch (IOException e) {
                c.close();
                return nobodyThere(where, env, uid); // a stale socket: nobody answers
            }
            client = new FastClient(c);
        } catch (IOException | RuntimeException e) {
            return AS_GIVEN;
        }
        try (SocketChannel c = client.channel) {
            return client.run(args, token.get(), env);
        } catch (IOException e) {
            // The run may have started: it is not run a second time here.
            client.lines.println("magus: lost the magus server in the middle of the run: " + e.getMessage());
            return 125;
        }
    }

    /**
     * No server answers: in a login session the user's server starts in the background and
     * this run runs here ({@link #HERE}, as {@code run --local}); elsewhere the full command
     * line runs it as given.
     */
    private static int nobodyThere(ServerLocation where, Map<String, String> env, long uid) {
        if (dev.magus.server.lifecycle.AutoStart.refusal(env, uid).isPresent()) {
            return AS_GIVEN;
        }
        java.io.PrintWriter err = new java.io.PrintWriter(new java.io.OutputStreamWriter(
                new FileOutputStream(FileDescriptor.err), StandardCharsets.UTF_8), true);
        dev.magus.server.lifecycle.AutoStart.nobodyThere(where.dir(), env, uid, err);
        return HERE;
    }

    private int run(String[] args, String token, Map<String, String> env) throws IOException {
        Out hello = new Out("hello");
        hello.g.writeNumberField("version", VERSION);
        hello.g.writeStringField("token", token);
        send(JSON, hello.done());
        // The run right behind the hello, without waiting for the welcome: the server reads nothing
        // after a hello it refuses, and the socket directory was checked to be this user's. A server
        // that refused has closed already; its answer is still there to read.
        IOException unsent = null;
        try {
            send(JSON, command(args, env));
        } catch (IOException e) {
            unsent = e;
        }
        Map<String, Object> answer;
        try {
            answer = control(read());
        } catch (IOException e) {
            // Closed before its welcome (a server stopping for its idle timeout as this client
            // connected): it ran nothing, and the full command line finds the server gone.
            return AS_GIVEN;
        }
        if ("refused".equals(answer.get("type"))) {
            lines.println("magus: the magus server refused this client: " + answer.get("message") + "; running here instead");
            return HERE;
        }
        if (!"welcome".equals(answer.get("type")) || !Long.valueOf(VERSION).equals(answer.get("version"))) {
            lines.println("magus: the magus server speaks another protocol (" + answer.get("version") + ", this client "
                    + VERSION + "); running here instead");
            return HERE;
        }
        if (unsent != null) {
            throw unsent;
        }
        OutputStream out = new FileOutputStream(FileDescriptor.out);
        OutputStream err = new FileOutputStream(FileDescriptor.err);
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
                    return HERE;
                } else if ("refused".equals(type)) {
                    lines.println("magus: the magus server refused this client: " + f.get("message") + "; running here instead");
                    return HERE;
                } else if ("local".equals(type)) {
                    // Only the full command line serves it (--local, --events, the live view): as given.
                    if (f.get("message") instanceof String m && !m.isEmpty()) {
                        lines.println(m);
                    }
                    return AS_GIVEN;
                } else if ("accepted".equals(type)) {
                    // The run starts: only now its stdin is sent and signals go to its group; a command the
                    // full command line runs after all finds both untouched.
                    forwardSignals();
                    if (Boolean.TRUE.equals(f.get("stdin"))) {
                        stdin();
                    }
                } else if ("ask".equals(type)) {
                    ask(f);
                } else if ("exit".equals(type)) {
                    return status(f.get("status"));
                }
                // Any other frame is ignored: the server writes magus's own lines on stderr (RunLines).
            }
        }
    }

    /** The child's stdin from here, on a thread of its own; a closed one is an empty one (StandardInput). */
    private void stdin() throws IOException {
        if (StandardInput.closedAtStart()) {
            send(JSON, new Out("stdin-end").done());
            return;
        }
        Thread t = new Thread(new Runnable() {
            @Override
            public void run() {
                copyStdin();
            }
        }, "magus-client-stdin");
        t.setDaemon(true);
        t.start();
    }

    /** The command frame's JSON, as {@code FrameCodec} reads it: the words, the working directory, the environment. */
    static byte[] command(String[] args, Map<String, String> env) throws IOException {
        Out o = new Out("command");
        JsonGenerator g = o.g;
        g.writeArrayFieldStart("args");
        for (String a : args) {
            g.writeString(a);
        }
        g.writeEndArray();
        g.writeStringField("cwd", Path.of("").toAbsolutePath().toString());
        g.writeObjectFieldStart("env");
        for (Map.Entry<String, String> e : env.entrySet()) {
            g.writeStringField(e.getKey(), e.getValue());
        }
        g.writeEndObject();
        // It copies its input as frames (the JDK's sockets cannot pass descriptors); a terminal is said, for -v.
        if (StandardInput.terminal()) {
            g.writeBooleanField("stdinTerminal", true);
        }
        // A controlling terminal to put a forwarded --ask's questions on.
        if (hasTerminal()) {
            g.writeBooleanField("tty", true);
        }
        return o.done();
    }

    /** One control frame's JSON object, its type first. */
    private static final class Out extends ByteArrayOutputStream {
        final JsonGenerator g;

        Out(String type) throws IOException {
            super(256);
            g = FACTORY.createGenerator(this);
            g.writeStartObject();
            g.writeStringField("type", type);
        }

        byte[] done() throws IOException {
            g.writeEndObject();
            g.close();
            return toByteArray();
        }
    }

    /** Whether this process has a controlling terminal: {@code /dev/tty} opens (the prompt's class is loaded only to ask). */
    private static boolean hasTerminal() {
        try (FileInputStream t = new FileInputStream("/dev/tty")) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * An ask of the run's ({@code --ask}): put on the controlling terminal as a local run puts it,
     * for as long as the server waits; the answer goes back as the decision of the same id. One at
     * a time, in the order they came: the run's other frames wait meanwhile, as its caller does. A
     * signal forwarded meanwhile (Ctrl-C at the question) gives it up: denied.
     */
    private void ask(Map<String, Object> f) throws IOException {
        if (prompt == null) {
            prompt = TerminalPrompt.open(TerminalPrompt.TTY).orElse(null);
        }
        String question = TerminalPrompt.question(number(f.get("pid")).intValue(), String.valueOf(f.get("process")),
                String.valueOf(f.get("path")), String.valueOf(f.get("resolved")), String.valueOf(f.get("access")));
        String word;
        if (prompt == null) {
            lines.print(question);
            lines.println("(no terminal to ask on: denied)");
            word = "deny";
        } else {
            int before = signals;
            word = prompt.ask(question, Math.max(1, number(f.get("timeoutMillis")).longValue()), () -> signals != before);
        }
        try {
            Out d = new Out("decision");
            d.g.writeNumberField("id", number(f.get("id")).longValue());
            d.g.writeStringField("decision", word);
            send(JSON, d.done());
        } catch (IOException e) {
            // A run that ended meanwhile (a signal at the question): its exit is still to read.
        }
    }

    private static Number number(Object o) {
        return o instanceof Number n ? n : Long.valueOf(0);
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
                        signals++;
                        try {
                            Out s = new Out("signal");
                            s.g.writeNumberField("signal", number);
                            send(JSON, s.done());
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
        try (InputStream stdin = new FileInputStream(FileDescriptor.in)) {
            StandardInput.pump(stdin, (buf, n) -> send(STDIN, buf, n));
            send(JSON, new Out("stdin-end").done());
        } catch (IOException e) {
            // the connection is gone: the run ends with it
        }
    }

    private void send(byte kind, byte[] json) throws IOException {
        send(kind, json, json.length);
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

    /**
     * A control frame's fields: text, numbers (a {@code Long} when integral and in its range, else
     * a {@code Double}), booleans and null; a field whose value is an object or an array is null
     * here (an event's, which the server renders itself).
     */
    static Map<String, Object> control(byte[] frame) throws IOException {
        if (frame[0] != JSON) {
            throw new IOException("the magus server sent bytes where a control frame belongs");
        }
        Map<String, Object> fields = new HashMap<>();
        try (JsonParser p = FACTORY.createParser(frame, 1, frame.length - 1)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("a control frame that is not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                fields.put(name, scalar(p, p.nextToken()));
            }
            if (p.nextToken() != null) {
                throw new IOException("a control frame that is not JSON: text after its object");
            }
        } catch (com.fasterxml.jackson.core.JacksonException e) {
            throw new IOException("a control frame that is not JSON: " + e.getOriginalMessage());
        }
        return fields;
    }

    private static Object scalar(JsonParser p, JsonToken t) throws IOException {
        if (t == JsonToken.VALUE_STRING) {
            return p.getText();
        } else if (t == JsonToken.VALUE_NUMBER_INT) {
            // beyond long's range: a double, as strtod reads it in magus-client.c
            return p.getNumberType() == JsonParser.NumberType.BIG_INTEGER ? (Object) p.getDoubleValue() : (Object) p.getLongValue();
        } else if (t == JsonToken.VALUE_NUMBER_FLOAT) {
            return p.getDoubleValue();
        } else if (t == JsonToken.VALUE_TRUE || t == JsonToken.VALUE_FALSE) {
            return t == JsonToken.VALUE_TRUE;
        } else if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
            p.skipChildren();
        }
        return null;
    }

    private static long uid() {
        try {
            return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

}
