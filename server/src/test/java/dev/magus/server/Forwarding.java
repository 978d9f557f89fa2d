package dev.magus.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.magus.server.client.ServerClient;
import dev.magus.server.protocol.Frame;
import dev.magus.server.protocol.FrameCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.function.Consumer;

/**
 * The protocol tests' forwarding loop: a structured run ({@link Frame.Submit}) over a
 * {@link ServerClient}, its frames read back as a client would. No product client sends a
 * structured run (both send their words, {@link Frame.Command}); the tests do, to reach every
 * field of a run without the command line's model, which the server module cannot depend on.
 */
final class Forwarding {
    private Forwarding() {
    }

    /** How a forwarded run ended. */
    sealed interface Outcome {
        /** It ran (or was refused, with its diagnostic among the events) and exited with {@code status}. */
        record Exited(int status, int signal) implements Outcome {
        }

        /** The server's workspace does not meet this client's mode: run the work here. */
        record Declined(Frame.Declined frame) implements Outcome {
        }
    }

    /**
     * Forwards one run and streams it: the child's bytes to {@code out} and {@code err} as they
     * come, each event to {@code events}, {@code stdin} (when given) to the child on a thread of
     * its own. Returns when the run ends, or when the server declines it.
     */
    static Outcome forward(ServerClient c, Frame.Submit submit, InputStream stdin, OutputStream out, OutputStream err,
            Consumer<ObjectNode> events) throws IOException {
        c.send(submit);
        if (submit.stdin() && stdin != null) {
            Thread t = new Thread(() -> copyStdin(c, stdin), "magus-test-client-stdin");
            t.setDaemon(true);
            t.start();
        }
        while (true) {
            Frame.ToClient f = c.read();
            if (f instanceof Frame.Stdout o) {
                out.write(o.bytes());
                out.flush();
            } else if (f instanceof Frame.Stderr e) {
                err.write(e.bytes());
                err.flush();
            } else if (f instanceof Frame.Event e) {
                events.accept(e.event());
            } else if (f instanceof Frame.Exit x) {
                return new Outcome.Exited(x.status(), x.signal());
            } else if (f instanceof Frame.Declined d) {
                return new Outcome.Declined(d);
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
