package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.magus.server.ForwardingClientsTest.Client;
import dev.magus.server.protocol.Frame;
import dev.magus.server.protocol.FrameCodec;
import dev.magus.server.socket.SocketDir;
import dev.magus.server.socket.Token;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Both forwarding clients ({@link ForwardingClientsTest}'s {@link Client}s, each as a real
 * process) against a FAKE server that sends what the real one never does: a diagnostic whose
 * code and layer are empty, exit statuses out of int's range or not numbers at all. The fake
 * listens on a real Unix socket laid out as the real server lays it out ({@link SocketDir}
 * 0700 under the fake home, the {@link Token} file 0600 beside the socket), checks the hello's
 * token and version, answers with a welcome of {@link Frame#VERSION} and then the hostile frames.
 * No client may crash, and a status that is not one is never a success.
 */
class HostileServerClientsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path root;
    Path workspace;
    SocketDir dir;
    Token token;
    ServerSocketChannel listener;
    final Map<String, String> env = new LinkedHashMap<>();

    @BeforeEach
    void listen() throws IOException {
        Fixture.assumeLinux();
        Path home = Files.createDirectories(root.resolve("home")).toRealPath();
        workspace = Files.createDirectories(root.resolve("ws")).toRealPath();
        env.put("PATH", Optional.ofNullable(System.getenv("PATH")).orElse("/usr/bin:/bin"));
        env.put("HOME", home.toString());
        env.put("LANG", "C.UTF-8");
        dir = SocketDir.forUser(env, Fixture.uid());
        dir.prepare(Fixture.uid());
        open();
    }

    /** A fresh fake: a new token, a new listener on the socket (one client each). */
    private void open() throws IOException {
        if (listener != null) {
            listener.close();
        }
        Files.deleteIfExists(dir.socket());
        token = Token.generate();
        token.write(dir.tokenFile());
        listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        listener.bind(UnixDomainSocketAddress.of(dir.socket()));
    }

    @AfterEach
    void close() throws IOException {
        if (listener != null) {
            listener.close();
        }
    }

    @Test
    void theFakeIsLaidOutAsTheRealServerLaysItsSocketOut() throws IOException {
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.dir(), LinkOption.NOFOLLOW_LINKS)))
                .isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.tokenFile(), LinkOption.NOFOLLOW_LINKS)))
                .isEqualTo("rw-------");
        assertThat(dir.socket().getParent()).isEqualTo(dir.dir());
        assertThat(dir.tokenFile()).hasFileName(SocketDir.SOCKET_NAME + ".token");
    }

    /** What the fake server saw of the one client it served, and the run's frame as it came. */
    record Served(Frame.Hello hello, Frame.Command run, byte[] runFrame) {
    }

    record Ran(int status, String out, String err, Served served) {
        List<String> magusLines() {
            return err.lines().filter(l -> l.startsWith("magus:")).toList();
        }
    }

    /**
     * Runs {@code client} (as {@code magus run -- true}) against the fake, which answers the
     * hello and the run with a welcome and then {@code frames}, each a whole encoded frame.
     */
    Ran run(Client client, byte[]... frames) throws Exception {
        return run(ForwardingClientsTest.command(client, "run", "--", "true"), frames);
    }

    Ran run(List<String> command, byte[]... frames) throws Exception {
        Client client = command.contains(ForwardingClientsTest.NATIVE.toAbsolutePath().toString()) ? Client.NATIVE : Client.JAVA;
        CompletableFuture<Served> served = CompletableFuture.supplyAsync(() -> serve(frames));
        ProcessBuilder pb = new ProcessBuilder(command).directory(workspace.toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Thread t = new Thread(() -> {
            try (InputStream e = p.getErrorStream()) {
                e.transferTo(err);
            } catch (IOException e) {
                // the process is gone
            }
        });
        t.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the client ends").isTrue();
        t.join();
        String stderr = err.toString(StandardCharsets.UTF_8);
        listener.close(); // a client that never connected leaves the fake's accept: it fails, and says so below
        Served s;
        try {
            s = served.get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            int status = p.exitValue();
            throw new AssertionError("the exchange with the fake server failed: client " + client + " exited " + status
                    + (status > 128 ? " (killed by signal " + (status - 128) + ")" : "") + ", stdout [" + out + "], stderr ["
                    + stderr + "]", e.getCause());
        }
        return new Ran(p.exitValue(), out, stderr, s);
    }

    private Served serve(byte[][] frames) {
        try (SocketChannel c = listener.accept()) {
            DataInputStream in = new DataInputStream(Channels.newInputStream(c));
            Frame hello = FrameCodec.decode(read(in));
            byte[] runFrame = read(in);
            Frame run = FrameCodec.decode(runFrame);
            if (!(hello instanceof Frame.Hello h) || !token.matches(h.token()) || !(run instanceof Frame.Command s)) {
                throw new IllegalStateException("not a hello with the token and a run: " + hello + ", " + run);
            }
            write(c, FrameCodec.encode(new Frame.Welcome(Frame.VERSION)));
            for (byte[] f : frames) {
                write(c, f);
            }
            // Until the client goes: it ends on the last frame, and nothing else may come first.
            while (in.read() >= 0) {
                // a signal or stdin frame would be read here; none is expected
            }
            return new Served(h, s, runFrame);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static byte[] read(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n <= 0 || n > FrameCodec.MAX_FRAME) {
            throw new IOException("a frame of " + n + " bytes from the client");
        }
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }

    private static void write(SocketChannel c, byte[] frame) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(frame);
        while (b.hasRemaining()) {
            c.write(b);
        }
    }

    /** A JSON control frame of exactly this text, which the real server's codec would never write. */
    private static byte[] raw(String json) {
        byte[] b = json.getBytes(StandardCharsets.UTF_8);
        return FrameCodec.bytes((byte) 0, b, 0, b.length);
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void anEventIsNeverRenderedByAClientAndTheRunsStatusIsKept(Client client) throws Exception {
        // magus's own lines are the server's to write on stderr (RunLines): a client prints no event.
        ForwardingClientsTest.assumeBuilt(client);
        // An event frame, as servers of earlier versions sent them: no frame of this version, and ignored.
        ObjectNode d = JSON.createObjectNode().put("type", "diagnostic").put("severity", "error").put("code", "")
                .put("layer", "").put("message", "from a hostile server").put("source", "");
        ObjectNode event = JSON.createObjectNode().put("type", "event");
        event.set("event", d);
        byte[] body = JSON.writeValueAsBytes(event);
        Ran r = run(client, FrameCodec.bytes(FrameCodec.JSON, body, 0, body.length), FrameCodec.encode(new Frame.Exit(3, 0)));
        assertThat(r.served().hello().version()).isEqualTo(Frame.VERSION);
        assertThat(r.served().run().args()).containsExactly("run", "--", "true");
        assertThat(r.status()).as("stderr: %s", r.err()).isEqualTo(3);
        assertThat(r.out()).isEmpty();
        assertThat(r.magusLines()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void aStatusOutsideAProcessStatusIs125NeverASuccess(Client client) throws Exception {
        ForwardingClientsTest.assumeBuilt(client);
        // exit(256) would report 0: every status outside 0..255, or not whole, is refused.
        for (String status : List.of("1e300", "256", "-256", "4294967296", "3.5", "-1")) {
            open(); // a fresh fake for each client run
            Ran r = run(client, raw("{\"type\":\"exit\",\"status\":" + status + ",\"signal\":0}"));
            assertThat(r.status()).as("status %s, stderr: %s", status, r.err()).isEqualTo(125);
            assertThat(r.magusLines()).as("status %s", status)
                    .containsExactly("magus: the magus server sent an exit status that is not one; exiting 125");
        }
        open();
        Ran ok = run(client, raw("{\"type\":\"exit\",\"status\":255,\"signal\":0}"));
        assertThat(ok.status()).isEqualTo(255);
        assertThat(ok.magusLines()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void aStatusThatIsNotANumberIs125NeverASuccess(Client client) throws Exception {
        ForwardingClientsTest.assumeBuilt(client);
        // NaN is not JSON; a string is the status a server can send that is not a number.
        for (String status : List.of("\"x\"", "null", "true", "{}")) {
            open(); // a fresh fake for each client run
            Ran r = run(client, raw("{\"type\":\"exit\",\"status\":" + status + ",\"signal\":0}"));
            assertThat(r.status()).as("status %s, stderr: %s", status, r.err()).isEqualTo(125);
            assertThat(r.magusLines()).as("status %s", status)
                    .containsExactly("magus: the magus server sent an exit status that is not one; exiting 125");
        }
    }

    @Test
    void bothClientsAgreeOnEveryHostileStatus() throws Exception {
        ForwardingClientsTest.assumeBuilt(Client.NATIVE);
        List<String> statuses = List.of("1e300", "-1e300", "2147483648", "-2147483649", "4294967296", "4294967299",
                "99999999999999999999", "3.7", "-0.5", "\"3\"", "\"x\"");
        List<String> java = new ArrayList<>();
        List<String> c = new ArrayList<>();
        for (String status : statuses) {
            for (Client client : Client.values()) {
                open();
                Ran r = run(client, raw("{\"type\":\"exit\",\"status\":" + status + ",\"signal\":0}"));
                (client == Client.JAVA ? java : c).add(status + " -> " + r.status() + " " + r.magusLines());
            }
        }
        assertThat(c).isEqualTo(java);
        assertThat(java).allSatisfy(l -> assertThat(l).doesNotContain("Exception"));
    }

    /**
     * Both clients write a run's words as the same bytes: Jackson's escapes in FastClient, the
     * same in magus-client.c, and a byte that is not UTF-8 (given here by a shell) as its escaped
     * surrogate.
     */
    @Test
    void bothClientsWriteTheWordsAsTheSameBytes() throws Exception {
        ForwardingClientsTest.assumeBuilt(Client.NATIVE);
        String odd = "\u0001\b\f\n\r\t\"\\/\u007f\u00e9\u2028\ud83d\ude00";
        String expected = "[\"run\",\"--\",\"true\",\"\\u0001\\b\\f\\n\\r\\t\\\"\\\\/\u007f\u00e9\u2028\ud83d\ude00\","
                + "\"a\\uDCFFb\\uDCED\\uDCB2\\uDC80\"]";
        for (Client client : Client.values()) {
            open();
            List<String> command = new ArrayList<>(List.of("sh", "-c", "exec \"$@\" \"$(printf 'a\\377b\\355\\262\\200')\"", "sh"));
            command.addAll(ForwardingClientsTest.command(client, "run", "--", "true", odd));
            Ran r = run(command, FrameCodec.encode(new Frame.Exit(0, 0)));
            assertThat(r.status()).as("%s, stderr: %s", client, r.err()).isZero();
            String frame = new String(r.served().runFrame(), StandardCharsets.UTF_8);
            int from = frame.indexOf("\"args\":[") + "\"args\":".length();
            assertThat(frame.substring(from, frame.indexOf("],\"cwd\":") + 1)).as("%s", client).isEqualTo(expected);
        }
    }
}
