package dev.magus.server.protocol;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One message on the server socket. Every frame is a 4-byte big-endian length, then one kind
 * byte, then the body: JSON for control frames, the raw bytes for stdin, stdout and stderr.
 * Output travels as bytes, never as lines, so binary output, CRs and a last line without its
 * newline arrive exactly as the child wrote them; {@link FrameCodec} is the one place that
 * knows the layout.
 *
 * <p>Output is copied, not passed as descriptors: the denial inference and a forwarded run's
 * live diagnostics read it. Each read is one frame, in order within each stream. Standard input
 * is the client's descriptor 0 itself when the client can pass it ({@link Accepted}); the Java
 * client (the JDK's Unix-domain channels cannot pass one) sends stdin frames.
 *
 * <p>{@link ToServer} and {@link ToClient} are sealed: a new kind is a {@link #VERSION} bump.
 */
public sealed interface Frame {
    /**
     * The protocol version both ends say in their hello; any difference is refused by both,
     * with a line naming the two versions.
     */
    int VERSION = 5;

    /** Frames a client sends. */
    sealed interface ToServer extends Frame {
    }

    /** Frames the server sends. */
    sealed interface ToClient extends Frame {
    }

    /**
     * The first frame of every connection: nothing else is read before its token is checked. A
     * client may send its request right behind it without waiting for the {@link Welcome} (the
     * fast clients do, saving a round trip); after a refused hello the server reads nothing more.
     */
    record Hello(int version, String token) implements ToServer {
        public Hello {
            Objects.requireNonNull(token, "token");
        }

        /** Never the token: a frame may be logged. */
        @Override
        public String toString() {
            return "Hello[version=" + version + "]";
        }
    }

    /**
     * A command as the client was given it: its words after {@code magus} (bytes that are not
     * UTF-8 kept as {@code RawBytes} keeps them), its working directory and its whole environment.
     * The server parses it with the command line's own model ({@code RunGrammar}); a client reads
     * no option itself, and a run is asked for in no other way. With {@code stdinFd} (JSON {@code "stdinFd": true}, absent when false) the
     * client can pass its standard input as a descriptor ({@link Accepted}); {@code stdinTerminal}
     * ({@code "stdinTerminal": true}) says it is a terminal, so that {@code -v} can say when the run
     * gets it as a copy instead. {@code tty} ({@code "tty": true}) says the client has a controlling
     * terminal to put a forwarded {@code --ask}'s questions on ({@link Ask}); without one {@code --ask}
     * is the usage error it is locally.
     */
    record Command(List<String> args, String cwd, Map<String, String> env, boolean stdinFd, boolean stdinTerminal,
            boolean tty) implements ToServer {
        public Command {
            args = List.copyOf(args);
            Objects.requireNonNull(cwd, "cwd");
            env = Map.copyOf(env);
        }

        /** A client that sends its standard input as frames only, says nothing of it, and has no terminal. */
        public Command(List<String> args, String cwd, Map<String, String> env) {
            this(args, cwd, env, false, false, false);
        }
    }

    /** Bytes for the child's standard input. */
    record StdinData(byte[] bytes) implements ToServer {
    }

    /**
     * The client's answer to the {@link Ask} of the same {@code id}: {@code "once"} (this open
     * only), {@code "run"} (this access to this path for the rest of the run) or {@code "deny"};
     * any other word is a malformed frame. Only a run that asks ({@code --ask}) takes one;
     * an answer to an ask that is no longer waiting (its time ran out) is dropped.
     */
    record Decision(long id, String decision) implements ToServer {
        /** The words a decision is said in. */
        public static final List<String> WORDS = List.of("once", "run", "deny");

        public Decision {
            Objects.requireNonNull(decision, "decision");
            if (!WORDS.contains(decision)) {
                throw new IllegalArgumentException("a decision is once, run or deny, not " + decision);
            }
        }
    }

    /** The client's standard input ended: the child's is closed. */
    record StdinEnd() implements ToServer {
    }

    /** A signal (SIGINT, SIGTERM, SIGHUP) for the child's process group. */
    record Signal(int signal) implements ToServer {
    }

    /** {@code magus server status}: the server answers with {@link Status} and closes. */
    record StatusQuery() implements ToServer {
    }

    /** {@code magus server stop}: the server answers with {@link Stopping} and stops. */
    record Stop() implements ToServer {
    }

    /**
     * The server serves the {@link Command}: its run starts now. With {@code stdin} the client sends
     * its standard input from here on (the run did not say {@code --no-stdin}); never before, so a
     * command the client runs itself after all finds its input unread.
     *
     * <p>With {@code stdinFd} too (only to a command that offered it), the client's next bytes are
     * the one byte {@code 'F'} with its descriptor 0 attached ({@code SCM_RIGHTS}), the child's
     * descriptor 0 (a terminal stays one); without a descriptor, stdin frames follow. A second
     * descriptor, another byte, or a descriptor that is no readable file, pipe, socket, terminal
     * or {@code /dev/null} refuses the run (MGS2004). A descriptor sent with any other byte is
     * closed by the kernel: frames are read without room for descriptors.
     */
    record Accepted(boolean stdin, boolean stdinFd) implements ToClient {
        /** Stdin, if any, as frames. */
        public Accepted(boolean stdin) {
            this(stdin, false);
        }
    }

    /**
     * The {@link Command} is the client's own to run, as it was given (another command than
     * {@code run}, or an option only its process serves: {@code --local}, {@code --events}, the live
     * view); {@code message}, when not empty, is said first.
     */
    record Local(String message) implements ToClient {
    }

    /** The server accepted the hello. */
    record Welcome(int version) implements ToClient {
    }

    /**
     * The server refused the connection and closes it: a wrong or missing token
     * ({@code code} MGS2011) or another protocol version ({@code code} "protocol").
     */
    record Refused(String code, String message) implements ToClient {
    }

    /**
     * An open the run's policy refused, put to the person at the client's terminal while the
     * child waits ({@code --ask}): the client asks as a local {@code --ask} asks, and answers with
     * a {@link Decision} of the same {@code id}. No answer within {@code timeoutMillis} denies;
     * the client stops asking then, and its late answer is dropped. A client that goes away denies.
     *
     * @param id            this ask, unique within the connection
     * @param pid           the calling thread's id
     * @param process       the caller's program, empty when unreadable
     * @param path          the path as the caller named it, made absolute
     * @param resolved      the path with every link resolved
     * @param access        {@code read}, {@code write}, {@code create} or {@code list}
     * @param timeoutMillis how long the server waits for the answer
     */
    record Ask(long id, int pid, String process, String path, String resolved, String access, long timeoutMillis)
            implements ToClient {
        public Ask {
            Objects.requireNonNull(process, "process");
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(resolved, "resolved");
            Objects.requireNonNull(access, "access");
        }
    }

    /** Bytes the child wrote on its standard output, one read's worth. */
    record Stdout(byte[] bytes) implements ToClient {
    }

    /** Bytes the child wrote on its standard error, one read's worth. */
    record Stderr(byte[] bytes) implements ToClient {
    }

    /** The run ended: magus run's exit status (docs/network.md), and the signal that ended the child (0 when none). */
    record Exit(int status, int signal) implements ToClient {
    }

    /**
     * The server's workspace does not meet the client's mode: the client runs the work itself,
     * under its own mode.
     */
    record Declined(String clientMode, String workspaceMode, String message) implements ToClient {
    }

    /**
     * The server's counters, by meter name and tags, for {@code magus server status}, and the
     * address of its Prometheus scrape ({@code host:port}) when it serves one, and when it stops by
     * itself.
     */
    record Status(long pid, Map<String, Double> counters, Optional<String> metrics, Optional<Idle> idle) implements ToClient {
        public Status {
            counters = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(counters));
            Objects.requireNonNull(metrics, "metrics");
            Objects.requireNonNull(idle, "idle");
        }
    }

    /**
     * The server's idle timeout ({@code timeoutMillis}, 0 for none) and when it stops if nothing
     * connects before ({@code stopsAtMillis}, epoch milliseconds; 0 while another connection is open
     * or with no timeout). {@code connections} counts the open ones besides the status query's own.
     */
    record Idle(long timeoutMillis, long stopsAtMillis, int connections) {
    }

    /** The server is stopping. */
    record Stopping() implements ToClient {
    }
}
