package dev.magus.landlock.launch;

import static dev.magus.landlock.launch.Children.assumeLandlock;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Mode;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.compile.NetRules;
import dev.magus.landlock.seccomp.SocketRules;
import dev.magus.policy.fs.AccessMode;
import dev.magus.policy.net.NetworkMode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seccomp layer on real confined children: Python opens each socket and prints what the
 * kernel said (errno 13 is the filter's EACCES).
 */
class SocketFilterTest {
    private static final Path PYTHON = Path.of("/usr/bin/python3");
    @TempDir
    Path dir;

    @BeforeEach
    void assumptions() {
        assumeLandlock();
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isExecutable(PYTHON), "no " + PYTHON);
    }

    /** Tries {@code socket(args)} for each named triple; prints {@code name ok} or {@code name errno}. */
    private static String tries(String... namedArgs) {
        StringBuilder b = new StringBuilder("import socket\n");
        for (int i = 0; i < namedArgs.length; i += 2) {
            b.append("try:\n    socket.socket(").append(namedArgs[i + 1]).append(").close(); print('")
                    .append(namedArgs[i]).append(" ok')\nexcept OSError as e:\n    print('").append(namedArgs[i])
                    .append("', e.errno)\n");
        }
        return b.toString();
    }

    private Children.Result python(NetworkMode mode, boolean unix, String script) {
        NetRules net = mode == NetworkMode.OPEN ? NetRules.OPEN : new NetRules(mode, new TreeSet<>(), new TreeSet<>());
        try (Confinement c = Confinement.prepare(Mode.REQUIRED, Children.systemPlus(Children.rule(dir, AccessMode.RWX)),
                net, SocketRules.of(mode, unix), LandlockProbe.kernel())) {
            return Children.run(new SpawnRequest(PYTHON, List.of("python3", "-c", script), Children.env(dir), dir,
                    Stdio.NULL_INPUT), c);
        }
    }

    @Test
    void underNonePacketRawIcmpUdpAndMptcpAreRefusedAndTcpAndSocketpairAreNot() {
        String out = python(NetworkMode.NONE, false, tries(
                "packet", "17, socket.SOCK_RAW, 0x0300",
                "raw-icmp", "socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP",
                "ping", "socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP",
                "udp", "socket.AF_INET, socket.SOCK_DGRAM",
                "udp6", "socket.AF_INET6, socket.SOCK_DGRAM | socket.SOCK_NONBLOCK | socket.SOCK_CLOEXEC",
                "mptcp", "socket.AF_INET, socket.SOCK_STREAM, 262",
                "tcp", "socket.AF_INET, socket.SOCK_STREAM",
                "tcp6", "socket.AF_INET6, socket.SOCK_STREAM | socket.SOCK_CLOEXEC, socket.IPPROTO_TCP",
                "netlink-route", "socket.AF_NETLINK, socket.SOCK_RAW, 0")
                + "a, b = socket.socketpair(); a.sendall(b'x'); print('socketpair', b.recv(1).decode())\n")
                .assertOk().out();
        assertThat(out.lines()).contains("packet 13", "raw-icmp 13", "ping 13", "udp 13", "udp6 13", "mptcp 13",
                "tcp ok", "tcp6 ok", "netlink-route ok", "socketpair x");
    }

    @Test
    void proxyModeRefusesUdpAsNoneDoes() {
        String out = python(NetworkMode.PROXY, false, tries("udp", "socket.AF_INET, socket.SOCK_DGRAM",
                "tcp", "socket.AF_INET, socket.SOCK_STREAM")).assertOk().out();
        assertThat(out.lines()).contains("udp 13", "tcp ok");
    }

    @Test
    void aUnixSocketServerIsUnreachableUnlessUnixSocketsAreDeclared() throws IOException {
        Path socket = dir.resolve("server.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            Thread acceptor = new Thread(() -> {
                while (server.isOpen()) {
                    try (SocketChannel c = server.accept()) {
                        c.write(java.nio.ByteBuffer.wrap("hello\n".getBytes()));
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "test-unix-accept");
            acceptor.setDaemon(true);
            acceptor.start();
            String connect = "import socket\ntry:\n    s = socket.socket(socket.AF_UNIX)\n    s.connect('" + socket
                    + "')\n    print('reached', s.recv(6).decode().strip())\nexcept OSError as e:\n    print('refused', e.errno)\n"
                    + "a, b = socket.socketpair(); a.sendall(b'y'); print('socketpair', b.recv(1).decode())\n";
            assertThat(python(NetworkMode.OPEN, false, connect).assertOk().out().lines())
                    .contains("refused 13", "socketpair y");
            assertThat(python(NetworkMode.OPEN, true, connect).assertOk().out().lines())
                    .contains("reached hello", "socketpair y");
            assertThat(python(NetworkMode.NONE, true, connect).assertOk().out().lines()).contains("reached hello");
        }
    }

    @Test
    void tcpStillWorksUnderOpenAndUdpIsNotFilteredThere() throws IOException {
        try (ServerSocket server = new ServerSocket(0, 5, InetAddress.getByName("127.0.0.1"))) {
            Thread acceptor = new Thread(() -> {
                try (Socket c = server.accept()) {
                    c.getOutputStream().write("hi\n".getBytes());
                } catch (IOException e) {
                    // the test fails on the child's side
                }
            }, "test-tcp-accept");
            acceptor.setDaemon(true);
            acceptor.start();
            String script = "import socket\ns = socket.create_connection(('127.0.0.1', " + server.getLocalPort()
                    + "))\nprint('tcp', s.recv(3).decode().strip())\n"
                    + tries("udp", "socket.AF_INET, socket.SOCK_DGRAM", "unix", "socket.AF_UNIX");
            assertThat(python(NetworkMode.OPEN, false, script).assertOk().out().lines())
                    .contains("tcp hi", "udp ok", "unix 13");
        }
    }
}
