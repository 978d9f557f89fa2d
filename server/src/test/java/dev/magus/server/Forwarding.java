package dev.magus.server;

import dev.magus.server.client.ServerClient;
import dev.magus.server.protocol.Frame;
import dev.magus.server.protocol.FrameCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The protocol tests' forwarding loop: a client's words ({@link Frame.Command}) over a
 * {@link ServerClient}, its frames read back as a client reads them, stdin sent as frames once
 * the server accepts the run.
 */
final class Forwarding {
    private Forwarding() {
    }

    /** How a forwarded run ended. */
    sealed interface Outcome {
        /** It ran (or was refused, with its line on stderr) and exited with {@code status}. */
        record Exited(int status, int signal) implements Outcome {
        }

        /** The server's workspace does not meet this client's mode: run the work here. */
        record Declined(Frame.Declined frame) implements Outcome {
        }

        /** The command is the client's own to run. */
        record Local(String message) implements Outcome {
        }
    }

    /**
     * Forwards one command and streams its run: the child's bytes to {@code out} and {@code err}
     * as they come, {@code stdin} (when given; else an empty one) to the child on a thread of its
     * own once the server accepts the run and wants it. Returns when the run ends, or when the
     * server declines it or hands it back.
     */
    static Outcome forward(ServerClient c, Frame.Command command, InputStream stdin, OutputStream out, OutputStream err)
            throws IOException {
        c.send(command);
        while (true) {
            Frame.ToClient f = c.read();
            if (f instanceof Frame.Stdout o) {
                out.write(o.bytes());
                out.flush();
            } else if (f instanceof Frame.Stderr e) {
                err.write(e.bytes());
                err.flush();
            } else if (f instanceof Frame.Accepted a) {
                if (a.stdin() && stdin != null) {
                    Thread t = new Thread(() -> copyStdin(c, stdin), "magus-test-client-stdin");
                    t.setDaemon(true);
                    t.start();
                } else if (a.stdin()) {
                    c.send(new Frame.StdinEnd());
                }
            } else if (f instanceof Frame.Exit x) {
                return new Outcome.Exited(x.status(), x.signal());
            } else if (f instanceof Frame.Declined d) {
                return new Outcome.Declined(d);
            } else if (f instanceof Frame.Local l) {
                return new Outcome.Local(l.message());
            } else if (f instanceof Frame.Refused r) {
                throw new ServerClient.Refused(r.code(), r.message());
            } else {
                throw new FrameCodec.ProtocolException("unexpected " + f.getClass().getSimpleName() + " during a run");
            }
        }
    }
    private static void copyStdin(ServerClient c, InputStream stdin) {
        try {
            byte[] buf = new byte[16 * 1024];
            for (int n; (n = stdin.read(buf)) >= 0; ) {
                c.sendRaw(FrameCodec.stdin(buf, 0, n));
            }
            c.send(new Frame.StdinEnd());
        } catch (IOException e) {
            // the connection is gone: the run ends with it
        }
    }
}
