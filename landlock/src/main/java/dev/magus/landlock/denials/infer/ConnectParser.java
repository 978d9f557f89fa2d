package dev.magus.landlock.denials.infer;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds a failed TCP connect or bind in one output line: what curl, wget, nc, bash's
 * {@code /dev/tcp}, Node, Python and Java print. Landlock refuses both with EACCES, but a tool
 * may print only that the connect failed (curl's "Couldn't connect to server"), so a candidate
 * is confirmed against the run's TCP rules, never believed from the words alone. Pure; the
 * one piece of state, for Python's tracebacks, is a {@link Traceback} the caller keeps per
 * stream.
 */
public final class ConnectParser {

    /**
     * Which TCP right a candidate was refused; {@code EITHER} when the tool names neither;
     * {@code SOCKET} when opening the socket itself failed (the seccomp layer, MGS2015).
     */
    public enum Kind {
        CONNECT, BIND, EITHER, SOCKET
    }

    /**
     * A connect or bind a tool says failed: the host as printed (may be empty), and the port
     * when the line has one. For {@link Kind#SOCKET} the host is what the tool said of the
     * socket: a Unix socket's path, {@code unix}, {@code udp}, {@code raw}, {@code packet}, or
     * empty when it said nothing.
     */
    public record ConnectCandidate(Kind kind, String host, OptionalInt port, String line) {
        public ConnectCandidate {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(port, "port");
            Objects.requireNonNull(line, "line");
        }

        public ConnectCandidate(String host, OptionalInt port, String line) {
            this(Kind.CONNECT, host, port, line);
        }
    }

    private static final List<Pattern> WITH_PORT = List.of(
            // curl: (7) Failed to connect to 127.0.0.1 port 8080 after 0 ms: Permission denied
            Pattern.compile("Failed to connect to (\\S+?) port (\\d{1,5})\\b"),
            // bash: /dev/tcp/127.0.0.1/8080: Permission denied
            Pattern.compile("/dev/tcp/([^/\\s]+)/(\\d{1,5}): Permission denied"),
            // nc: connect to 127.0.0.1 port 8080 (tcp) failed: Permission denied
            Pattern.compile("connect to (\\S+) port (\\d{1,5}) \\(tcp\\) failed: Permission denied"),
            // wget: Connecting to host (host)|1.2.3.4|:80... failed: Permission denied.
            Pattern.compile("Connecting to .*?\\|([^|]+)\\|:(\\d{1,5})\\.\\.\\. failed: Permission denied"),
            // wget, an address in the URL: Connecting to 127.0.0.1:5565... failed: Permission denied.
            Pattern.compile("Connecting to ([^\\s|()]+):(\\d{1,5})\\.\\.\\. failed: Permission denied"),
            // Node: Error: connect EACCES 127.0.0.1:8080
            Pattern.compile("connect EACCES (\\S+?):(\\d{1,5})\\b"));
    /** Node's refused listen: Error: listen EACCES: permission denied 127.0.0.1:5558 (or :::3000). */
    private static final Pattern NODE_LISTEN = Pattern.compile("listen EACCES: permission denied (\\S*):(\\d{1,5})\\b");
    /** Java names neither host nor port: java.net.ConnectException: Permission denied (connect failed). */
    private static final Pattern JAVA = Pattern.compile("java\\.net\\.(?:Connect|Socket)Exception: Permission denied");
    /** Java's refused bind: java.net.BindException: Permission denied. */
    private static final Pattern JAVA_BIND = Pattern.compile("java\\.net\\.BindException: Permission denied");
    /** Python's socket errors carry no file name: {@code PermissionError: [Errno 13] Permission denied} and nothing after. */
    private static final Pattern PYTHON = Pattern.compile("^PermissionError: \\[Errno 13\\] Permission denied\\s*$");
    /**
     * Go: {@code dial unix /var/run/docker.sock: socket: permission denied}, {@code dial udp
     * 8.8.8.8:53: socket: permission denied} (the Docker CLI prints the first).
     */
    private static final Pattern GO_SOCKET = Pattern.compile("dial (unix|udp|udp4|udp6|ip\\S*) (\\S+): socket: permission denied",
            Pattern.CASE_INSENSITIVE);
    /** Node's Unix socket connect: {@code Error: connect EACCES /run/x.sock}. */
    private static final Pattern NODE_UNIX = Pattern.compile("connect EACCES (/\\S+)");
    /** C's {@code perror("socket")}, Perl's {@code die "socket: $!"}, ping's {@code ping: socket: Permission denied}. */
    private static final Pattern SOCKET_CALL = Pattern.compile("(?:^|[\\s:])socket: Permission denied", Pattern.CASE_INSENSITIVE);
    /** urllib wraps the same error: {@code urllib.error.URLError: <urlopen error [Errno 13] Permission denied>}. */
    private static final Pattern URLLIB = Pattern.compile("<urlopen error \\[Errno 13\\] Permission denied>");

    private ConnectParser() {
    }

    /** The candidates of a line, with the Python traceback seen so far on its stream. */
    public static List<ConnectCandidate> parse(String line, Traceback traceback) {
        List<ConnectCandidate> out = new ArrayList<>(1);
        Matcher go = GO_SOCKET.matcher(line);
        if (go.find()) {
            String net = go.group(1).toLowerCase(java.util.Locale.ROOT);
            out.add(new ConnectCandidate(Kind.SOCKET, net.equals("unix") ? go.group(2) : net.startsWith("udp") ? "udp" : "raw",
                    OptionalInt.empty(), line));
            return out;
        }
        Matcher nodeUnix = NODE_UNIX.matcher(line);
        if (nodeUnix.find()) {
            out.add(new ConnectCandidate(Kind.SOCKET, nodeUnix.group(1), OptionalInt.empty(), line));
            return out;
        }
        if (SOCKET_CALL.matcher(line).find()) {
            out.add(new ConnectCandidate(Kind.SOCKET, "", OptionalInt.empty(), line));
            return out;
        }
        for (Pattern p : WITH_PORT) {
            Matcher m = p.matcher(line);
            if (m.find()) {
                port(m.group(2)).ifPresent(port -> out.add(new ConnectCandidate(Kind.CONNECT, m.group(1), OptionalInt.of(port), line)));
                return out;
            }
        }
        Matcher listen = NODE_LISTEN.matcher(line);
        if (listen.find()) {
            port(listen.group(2)).ifPresent(port -> out.add(new ConnectCandidate(Kind.BIND, listen.group(1), OptionalInt.of(port), line)));
            return out;
        }
        if (JAVA_BIND.matcher(line).find()) {
            out.add(new ConnectCandidate(Kind.BIND, "", OptionalInt.empty(), line));
        } else if (JAVA.matcher(line).find() || URLLIB.matcher(line).find()) {
            out.add(new ConnectCandidate(Kind.CONNECT, "", OptionalInt.empty(), line));
        } else if (PYTHON.matcher(line).find()) {
            out.add(traceback.candidate(line));
        } else {
            traceback.see(line);
        }
        return out;
    }

    /** What a Python {@code socket(...)} call names: the family or type it asked for, or empty. */
    static String family(String source) {
        if (source.contains("AF_UNIX")) {
            return "unix";
        }
        if (source.contains("AF_PACKET")) {
            return "packet";
        }
        if (source.contains("SOCK_RAW")) {
            return "raw";
        }
        if (source.contains("SOCK_DGRAM")) {
            return "udp";
        }
        return "";
    }

    private static OptionalInt port(String digits) {
        int port = Integer.parseInt(digits);
        return port >= 1 && port <= 65535 ? OptionalInt.of(port) : OptionalInt.empty();
    }

    /**
     * What a Python traceback on one stream said before its last line: the source line of the
     * innermost frame ({@code s.bind(("127.0.0.1", 5556))}, {@code sock.connect(sa)}) says
     * which call failed, and the first {@code ("host", port)} literal of the traceback's
     * source lines says where. Under {@code python -c} there are no source lines: the kind is
     * then {@code EITHER} and the port unknown.
     */
    public static final class Traceback {
        private static final Pattern SOURCE = Pattern.compile("^ {4}\\S");
        private static final Pattern ADDRESS = Pattern.compile("\\(\\s*[\"']([^\"'\\s]+)[\"']\\s*,\\s*(\\d{1,5})\\s*\\)");
        private static final Pattern BIND_CALL = Pattern.compile("\\.(?:bind|listen)\\(|\\bserve_forever\\(|Server\\(");
        private static final Pattern CONNECT_CALL = Pattern.compile("\\.connect(?:_ex)?\\(|create_connection\\(|urlopen\\(");
        /** {@code socket.socket(...)}, {@code socket(AF_UNIX)}; not {@code socketpair(}. */
        private static final Pattern SOCKET_NEW = Pattern.compile("\\bsocket\\s*\\(|_socket\\.socket\\.__init__\\(");

        /** The family or type a {@code socket(...)} source line of this traceback asked for. */
        private String socketFamily = "";
        private String lastSource = "";
        private String host = "";
        private OptionalInt port = OptionalInt.empty();

        void see(String line) {
            if (line.startsWith("Traceback (most recent call last)")) {
                lastSource = "";
                host = "";
                port = OptionalInt.empty();
                socketFamily = "";
            } else if (SOURCE.matcher(line).find()) {
                lastSource = line;
                if (socketFamily.isEmpty() && SOCKET_NEW.matcher(line).find()) {
                    socketFamily = family(line);
                }
                Matcher m = ADDRESS.matcher(line);
                if (port.isEmpty() && m.find()) {
                    host = m.group(1);
                    port = port(m.group(2));
                }
            } else if (!line.startsWith("  File ") && !line.isBlank() && !line.strip().matches("[~^]+")) {
                // Anything else ends the traceback's frames.
                lastSource = "";
            }
        }

        ConnectCandidate candidate(String line) {
            Kind kind = BIND_CALL.matcher(lastSource).find() ? Kind.BIND
                    : CONNECT_CALL.matcher(lastSource).find() ? Kind.CONNECT
                    : SOCKET_NEW.matcher(lastSource).find() ? Kind.SOCKET : Kind.EITHER;
            ConnectCandidate c = kind == Kind.SOCKET ? new ConnectCandidate(kind, socketFamily, OptionalInt.empty(), line)
                    : new ConnectCandidate(kind, kind == Kind.EITHER ? "" : host,
                    kind == Kind.EITHER ? OptionalInt.empty() : port, line);
            lastSource = "";
            host = "";
            port = OptionalInt.empty();
            socketFamily = "";
            return c;
        }
    }
}
