package dev.magus.landlock.launch;

import static dev.magus.landlock.launch.Children.assumeLandlock;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.compile.NetRules;
import dev.magus.landlock.sys.Landlock;
import dev.magus.events.Mode;
import dev.magus.policy.net.NetworkMode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Landlock's TCP rules on real confined children, on loopback only: bash's {@code /dev/tcp}
 * is the client, a {@link ServerSocket} on 127.0.0.1 the peer.
 */
class TcpRulesTest {
    @TempDir
    Path dir;
    private ServerSocket allowed;
    private ServerSocket other;
    private Thread acceptor;

    @BeforeEach
    void servers() throws IOException {
        int abi = assumeLandlock();
        String why = "TCP rules need Landlock ABI 4, this kernel has " + abi;
        if (abi < 4) {
            System.err.println("skipped: " + why);
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(abi >= 4, why);
        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        allowed = new ServerSocket(0, 50, loopback);
        other = new ServerSocket(0, 50, loopback);
        acceptor = new Thread(() -> acceptAll(allowed), "test-accept");
        acceptor.setDaemon(true);
        acceptor.start();
        Thread t = new Thread(() -> acceptAll(other), "test-accept-2");
        t.setDaemon(true);
        t.start();
    }

    private static void acceptAll(ServerSocket s) {
        while (!s.isClosed()) {
            try (Socket c = s.accept()) {
                c.getOutputStream().write("hello\n".getBytes());
            } catch (IOException e) {
                return;
            }
        }
    }

    @AfterEach
    void close() throws IOException {
        if (allowed != null) {
            allowed.close();
            other.close();
        }
    }

    private Children.Result bash(NetRules net, String script) {
        try (Confinement c = Confinement.prepare(Mode.REQUIRED, Children.system(), net, LandlockProbe.kernel())) {
            return Children.run(new SpawnRequest(Path.of("/bin/bash"), List.of("bash", "-c", script), Children.env(dir),
                    dir, Stdio.NULL_INPUT), c);
        }
    }

    /** Binds a TCP socket on 127.0.0.1 to the port given as its argument (perl: no shell can bind). */
    private static final String BIND = "perl -MSocket -e 'socket(S, PF_INET, SOCK_STREAM, 0) or die \"socket: $!\\n\";"
            + " bind(S, sockaddr_in($ARGV[0], inet_aton(\"127.0.0.1\"))) or die \"bind: $!\\n\"; print \"bound\\n\"'";

    private static String connect(int port) {
        return "exec 3<>/dev/tcp/127.0.0.1/" + port + " && head -n1 <&3";
    }

    @Test
    void proxyModeConnectsOnlyToTheGrantedPorts() {
        NetRules net = new NetRules(NetworkMode.PROXY, new TreeSet<>(Set.of(allowed.getLocalPort())), new TreeSet<>());
        assertThat(bash(net, connect(allowed.getLocalPort())).assertOk().out()).isEqualTo("hello\n");
        Children.Result refused = bash(net, connect(other.getLocalPort())).assertFailed();
        assertThat(refused.err()).contains("Permission denied");
    }

    @Test
    void noneRefusesEveryConnectAndBind() {
        NetRules none = new NetRules(NetworkMode.NONE, new TreeSet<>(), new TreeSet<>());
        assertThat(bash(none, connect(allowed.getLocalPort())).assertFailed().err()).contains("Permission denied");
        assertThat(bash(none, BIND + " 0 2>&1").out()).contains("bind: Permission denied");
    }

    @Test
    void bindIsAllowedOnlyOnTheDeclaredPorts() throws IOException {
        int free;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            free = probe.getLocalPort();
        }
        NetRules net = new NetRules(NetworkMode.PROXY, new TreeSet<>(), new TreeSet<>(Set.of(free)));
        assertThat(bash(net, BIND + " " + free).assertOk().out()).isEqualTo("bound\n");
        assertThat(bash(net, BIND + " " + (free == 65535 ? free - 1 : free + 1) + " 2>&1").out())
                .contains("bind: Permission denied");
    }

    @Test
    void openModeIsExactlyTheFilesystemRuleset() {
        try (Confinement c = Confinement.prepare(Mode.REQUIRED, Children.system(), NetRules.OPEN, LandlockProbe.kernel())) {
            assertThat(((Confinement.Kernel) c).ruleset().handledNet()).isZero();
            assertThat(((Confinement.Kernel) c).ruleset().portGrants()).isEmpty();
        }
        assertThat(bash(NetRules.OPEN, connect(other.getLocalPort())).assertOk().out()).isEqualTo("hello\n");
    }

    @Test
    void theRulesetHandlesBothTcpRightsAndGrantsEachPortItsOwn() {
        NetRules net = new NetRules(NetworkMode.PROXY, new TreeSet<>(Set.of(8080, 5432)), new TreeSet<>(Set.of(5432, 3000)));
        try (Confinement c = Confinement.prepare(Mode.REQUIRED, Children.system(), net, LandlockProbe.kernel())) {
            var r = ((Confinement.Kernel) c).ruleset();
            assertThat(r.handledNet()).isEqualTo(Landlock.NET_BIND_TCP | Landlock.NET_CONNECT_TCP);
            assertThat(r.portGrants()).extracting(g -> g.port() + ":" + g.rights())
                    .containsExactly("3000:1", "5432:3", "8080:2");
        }
    }
}
