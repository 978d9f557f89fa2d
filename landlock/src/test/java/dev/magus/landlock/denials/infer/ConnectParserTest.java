package dev.magus.landlock.denials.infer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class ConnectParserTest {
    /** The candidates of a line read on its own (no traceback context). */
    private static List<ConnectParser.ConnectCandidate> parse(String line) {
        return ConnectParser.parse(line, new ConnectParser.Traceback());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '^', value = {
        "curl: (7) Failed to connect to 127.0.0.1 port 8080 after 0 ms: Couldn't connect to server^127.0.0.1^8080",
        "curl: (7) Failed to connect to repo.example.org port 443 after 2 ms: Permission denied^repo.example.org^443",
        "bash: /dev/tcp/127.0.0.1/5432: Permission denied^127.0.0.1^5432",
        "nc: connect to 10.0.0.5 port 22 (tcp) failed: Permission denied^10.0.0.5^22",
        "Connecting to example.org (example.org)|93.184.216.34|:80... failed: Permission denied.^93.184.216.34^80",
        "Error: connect EACCES 127.0.0.1:3000^127.0.0.1^3000",
        "Connecting to 127.0.0.1:5565... failed: Permission denied.^127.0.0.1^5565",
    })
    void toolsThatNameHostAndPort(String line, String host, int port) {
        assertThat(parse(line)).singleElement().satisfies(c -> {
            assertThat(c.host()).isEqualTo(host);
            assertThat(c.port()).isEqualTo(OptionalInt.of(port));
        });
    }

    @Test
    void javaNamesNeitherHostNorPort() {
        assertThat(parse("Exception in thread \"main\" java.net.ConnectException: Permission denied"))
                .singleElement().satisfies(c -> assertThat(c.port()).isEmpty());
        assertThat(parse("java.net.SocketException: Permission denied (connect failed)")).hasSize(1);
    }

    @Test
    void nodeNamesTheAddressItCouldNotListenOn() {
        assertThat(parse("Error: listen EACCES: permission denied 127.0.0.1:5558")).singleElement()
                .satisfies(c -> {
                    assertThat(c.kind()).isEqualTo(ConnectParser.Kind.BIND);
                    assertThat(c.host()).isEqualTo("127.0.0.1");
                    assertThat(c.port()).isEqualTo(OptionalInt.of(5558));
                });
        assertThat(parse("Error: listen EACCES: permission denied :::3000")).singleElement()
                .satisfies(c -> assertThat(c.port()).isEqualTo(OptionalInt.of(3000)));
        assertThat(parse("java.net.BindException: Permission denied")).singleElement()
                .satisfies(c -> assertThat(c.kind()).isEqualTo(ConnectParser.Kind.BIND));
    }

    private static ConnectParser.ConnectCandidate python(String... lines) {
        ConnectParser.Traceback tb = new ConnectParser.Traceback();
        for (int i = 0; i < lines.length - 1; i++) {
            assertThat(ConnectParser.parse(lines[i], tb)).isEmpty();
        }
        List<ConnectParser.ConnectCandidate> last = ConnectParser.parse(lines[lines.length - 1], tb);
        assertThat(last).hasSize(1);
        return last.get(0);
    }

    @Test
    void pythonsTracebackSaysWhichCallFailedAndWhere() {
        var bind = python("Traceback (most recent call last):", "  File \"/w/b.py\", line 3, in <module>",
                "    s.bind((\"127.0.0.1\", 5556))", "PermissionError: [Errno 13] Permission denied");
        assertThat(bind.kind()).isEqualTo(ConnectParser.Kind.BIND);
        assertThat(bind.host() + ":" + bind.port().getAsInt()).isEqualTo("127.0.0.1:5556");
        var connect = python("Traceback (most recent call last):", "  File \"/w/c.py\", line 2, in <module>",
                "    s = socket.create_connection((\"127.0.0.1\", 5557))", "        ^^^^^^^^^^^^^^^",
                "  File \"/usr/lib/python3.11/socket.py\", line 836, in create_connection", "    sock.connect(sa)",
                "PermissionError: [Errno 13] Permission denied");
        assertThat(connect.kind()).isEqualTo(ConnectParser.Kind.CONNECT);
        assertThat(connect.port()).isEqualTo(OptionalInt.of(5557));
        var either = python("Traceback (most recent call last):", "  File \"<string>\", line 1, in <module>",
                "PermissionError: [Errno 13] Permission denied");
        assertThat(either.kind()).isEqualTo(ConnectParser.Kind.EITHER);
        assertThat(either.port()).isEmpty();
        // A file error names its file: it is no socket.
        assertThat(parse("PermissionError: [Errno 13] Permission denied: '/h/.aws/credentials'")).isEmpty();
    }

    @Test
    void otherLinesAreNoConnect() {
        assertThat(parse("cat: /etc/shadow: Permission denied")).isEmpty();
        assertThat(parse("curl: (7) Failed to connect to x port 99999 after 0 ms")).isEmpty();
        assertThat(parse("downloading from https://repo.example.org:443/")).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '^', value = {
        "socket: Permission denied^",
        "ping: socket: Permission denied^",
        "Cannot connect: dial unix /var/run/docker.sock: socket: permission denied^/var/run/docker.sock",
        "lookup example.org: dial udp 8.8.8.8:53: socket: permission denied^udp",
        "Error: connect EACCES /run/postgresql/.s.PGSQL.5432^/run/postgresql/.s.PGSQL.5432",
    })
    void aSocketThatCouldNotBeOpened(String line, String what) {
        assertThat(parse(line)).singleElement().satisfies(c -> {
            assertThat(c.kind()).isEqualTo(ConnectParser.Kind.SOCKET);
            assertThat(c.host()).isEqualTo(what == null ? "" : what);
        });
    }

    @Test
    void pythonsTracebackNamesTheSocketItCouldNotOpen() {
        ConnectParser.Traceback t = new ConnectParser.Traceback();
        List<String> lines = List.of(
                "Traceback (most recent call last):",
                "  File \"/w/t.py\", line 2, in <module>",
                "    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)",
                "        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
                "  File \"/usr/lib/python3.11/socket.py\", line 232, in __init__",
                "    _socket.socket.__init__(self, family, type, proto, fileno)");
        lines.forEach(l -> assertThat(ConnectParser.parse(l, t)).isEmpty());
        assertThat(ConnectParser.parse("PermissionError: [Errno 13] Permission denied", t)).singleElement()
                .satisfies(c -> {
                    assertThat(c.kind()).isEqualTo(ConnectParser.Kind.SOCKET);
                    assertThat(c.host()).isEqualTo("udp");
                });
        List.of("Traceback (most recent call last):", "  File \"/w/u.py\", line 3, in <module>",
                "    c = socket.socket(socket.AF_UNIX)").forEach(l -> ConnectParser.parse(l, t));
        ConnectParser.parse("  File \"/usr/lib/python3.11/socket.py\", line 232, in __init__", t);
        ConnectParser.parse("    _socket.socket.__init__(self, family, type, proto, fileno)", t);
        assertThat(ConnectParser.parse("PermissionError: [Errno 13] Permission denied", t)).singleElement()
                .satisfies(c -> assertThat(c.host()).isEqualTo("unix"));
    }
}
