package dev.magus.landlock.denials.infer;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds a failed TCP connect in one output line: what curl, wget, nc, bash's {@code /dev/tcp},
 * Node and Java print. Landlock refuses a connect with EACCES, but a tool may print only that
 * the connect failed (curl's "Couldn't connect to server"), so a candidate is confirmed
 * against the run's TCP rules, never believed from the words alone. Pure.
 */
public final class ConnectParser {

    /** A connect a tool says failed: the host as printed, and the port when the line has one. */
    public record ConnectCandidate(String host, OptionalInt port, String line) {
        public ConnectCandidate {
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(port, "port");
            Objects.requireNonNull(line, "line");
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
            // Node: Error: connect EACCES 127.0.0.1:8080
            Pattern.compile("connect EACCES (\\S+?):(\\d{1,5})\\b"));
    /** Java names neither host nor port: java.net.ConnectException: Permission denied (connect failed). */
    private static final Pattern JAVA = Pattern.compile("java\\.net\\.(?:Connect|Socket)Exception: Permission denied");

    private ConnectParser() {
    }

    public static List<ConnectCandidate> parse(String line) {
        List<ConnectCandidate> out = new ArrayList<>(1);
        for (Pattern p : WITH_PORT) {
            Matcher m = p.matcher(line);
            if (m.find()) {
                int port = Integer.parseInt(m.group(2));
                if (port >= 1 && port <= 65535) {
                    out.add(new ConnectCandidate(m.group(1), OptionalInt.of(port), line));
                }
                return out;
            }
        }
        if (JAVA.matcher(line).find()) {
            out.add(new ConnectCandidate("", OptionalInt.empty(), line));
        }
        return out;
    }
}
