package dev.magus.server.client;

import dev.magus.server.protocol.Frame;
import dev.magus.server.protocol.FrameCodec;
import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;

/**
 * The control client of the server socket ({@code magus server status}, {@code stop}), on the
 * JDK's own Unix-domain {@link SocketChannel} and blocking I/O only: no Reactor, no Netty. One
 * connection carries one request. Runs are forwarded by {@link FastClient} and the native client.
 */
public final class ServerClient implements AutoCloseable {
    private final SocketChannel channel;
    private final InputStream in;
    private final Object writeLock = new Object();

    private ServerClient(SocketChannel channel) {
        this.channel = channel;
        this.in = Channels.newInputStream(channel);
    }

    /** The server said no: a wrong token (MGS2011) or another protocol version. */
    public static final class Refused extends IOException {
        private static final long serialVersionUID = 1L;
        private final String code;

        public Refused(String code, String message) {
            super(message);
            this.code = code;
        }

        public String code() {
            return code;
        }
    }

    /** Whether a server accepts connections on {@code socket} (a stale socket file refuses them). */
    public static boolean listening(Path socket) {
        try (SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            c.connect(UnixDomainSocketAddress.of(socket));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Connects and says hello with {@code token} in protocol {@code version}.
     *
     * @throws Refused the server refused the token or the version
     * @throws IOException no server, or the connection broke
     */
    public static ServerClient connect(Path socket, String token, int version) throws IOException {
        SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            c.connect(UnixDomainSocketAddress.of(socket));
            ServerClient client = new ServerClient(c);
            client.send(new Frame.Hello(version, token));
            Frame.ToClient answer = client.read();
            if (answer instanceof Frame.Refused r) {
                throw new Refused(r.code(), r.message());
            }
            if (!(answer instanceof Frame.Welcome w)) {
                throw new IOException("the magus server answered the hello with " + answer.getClass().getSimpleName());
            }
            if (w.version() != version) {
                throw new Refused("protocol", "the magus server speaks protocol version " + w.version() + " and this client "
                        + version + "; use the same magus for both");
            }
            return client;
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** {@link #connect(Path, String, int)} in this build's protocol version. */
    public static ServerClient connect(Path socket, String token) throws IOException {
        return connect(socket, token, Frame.VERSION);
    }

    public void send(Frame.ToServer frame) throws IOException {
        sendRaw(FrameCodec.encode(frame));
    }

    /** A whole encoded frame (or, in tests, anything at all). */
    public void sendRaw(byte[] bytes) throws IOException {
        synchronized (writeLock) {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                channel.write(b);
            }
        }
    }

    /**
     * The next frame from the server.
     *
     * @throws java.io.EOFException the server closed the connection
     */
    public Frame.ToClient read() throws IOException {
        byte[] len = in.readNBytes(4);
        if (len.length < 4) {
            throw new java.io.EOFException("the magus server closed the connection");
        }
        int n = ByteBuffer.wrap(len).getInt();
        if (n <= 0 || n > FrameCodec.MAX_FRAME) {
            throw new FrameCodec.ProtocolException("a frame of " + n + " bytes from the server");
        }
        byte[] body = in.readNBytes(n);
        if (body.length < n) {
            throw new java.io.EOFException("the magus server closed the connection in the middle of a frame");
        }
        Frame f = FrameCodec.decode(body);
        if (!(f instanceof Frame.ToClient c)) {
            throw new FrameCodec.ProtocolException("the server sent a client's frame");
        }
        return c;
    }

    /** Forwards a signal to the child's group. */
    public void signal(int signal) throws IOException {
        send(new Frame.Signal(signal));
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
