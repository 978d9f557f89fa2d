package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.RunEvent;
import dev.magus.landlock.denials.audit.AuditAvailability;
import dev.magus.landlock.denials.audit.AuditDenialSource;
import dev.magus.landlock.denials.audit.AuditOptions;
import dev.magus.orchestrator.run.RunRequest;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exact network denials: with Landlock's audit records read ({@code --kernel-audit}), a TCP
 * connect or bind the kernel refused is an MGS2013 from the record itself (address, port, the
 * YAML to declare), attributed to its run by domain, even when the tool printed nothing. Real
 * confined children; every connect is to a closed port on loopback and is refused before it
 * leaves the process.
 */
class NetworkAuditInRunsTest {
    @TempDir
    Path root;
    TestHost t;

    @BeforeEach
    void setUp() {
        int abi = TestHost.assumeLandlock();
        AuditAvailability a = AuditDenialSource.probe();
        String why = abi < 4 ? "TCP rules need Landlock ABI 4, this host has " + abi
                : a instanceof AuditAvailability.Unavailable u ? "Landlock audit records cannot be read here: " + u.reason() : "";
        if (!why.isEmpty()) {
            System.err.println("SKIP NetworkAuditInRunsTest: " + why);
        }
        Assumptions.assumeTrue(why.isEmpty(), why);
        t = new TestHost(root);
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }

    private List<Diagnostic> network(String yaml, String script) {
        t.yaml(yaml);
        try (AuditDenialSource audit = AuditDenialSource.open(new AuditOptions(true));
                Orchestrator o = Orchestrator.builder(t.host()).audit(audit).build()) {
            List<RunEvent> events = TestHost.events(o.submit(RunRequest.builder(t.workspace, "bash", "-c", script).build()));
            return events.stream().filter(e -> e instanceof RunEvent.Diag).map(e -> ((RunEvent.Diag) e).diagnostic())
                    .filter(d -> d.code() == Code.MGS2013).toList();
        }
    }

    @Test
    void aSilentConnectRefusedUnderProxyIsAnExactMgs2013WithThePortToDeclare() throws Exception {
        int port = freePort();
        List<Diagnostic> found = network("""
                sandbox:
                  mode: required
                  network: {mode: proxy, allow: [repo.magus.test]}
                """, "(echo > /dev/tcp/127.0.0.1/" + port + ") 2>/dev/null; true");
        assertThat(found).singleElement().satisfies(d -> {
            assertThat(d.source()).isEqualTo("audit");
            assertThat(d.layer()).isEqualTo(Layer.KERNEL);
            assertThat(d.operation()).isEqualTo(Operation.CONNECT);
            assertThat(d.subject()).isEqualTo("127.0.0.1:" + port);
            assertThat(d.details()).containsEntry("blockers", "net.connect_tcp").containsEntry("port", Integer.toString(port))
                    .containsEntry("allow_yaml", "sandbox:\n  network:\n    mode: proxy\n    ports: [" + port + "]\n")
                    .containsKey("domain");
        });
    }

    @Test
    void underNoneAConnectAndABindAreEachReportedOnceFromTheRecordEvenWhenTheToolAlsoSaysSo() throws Exception {
        int connect = freePort();
        int bind = freePort();
        List<Diagnostic> found = network("""
                sandbox:
                  mode: required
                  network: {mode: none}
                """, "echo > /dev/tcp/127.0.0.1/" + connect + "; perl -MSocket -e 'socket(S, PF_INET, SOCK_STREAM, 0);"
                + " bind(S, sockaddr_in(" + bind + ", inet_aton(\"127.0.0.1\"))) or die \"bind: $!\\n\"'; true");
        assertThat(found).hasSize(2).allSatisfy(d -> {
            assertThat(d.source()).isEqualTo("audit");
            assertThat(d.details()).containsEntry("reason", "network mode none");
        });
        assertThat(found).anySatisfy(d -> {
            assertThat(d.operation()).isEqualTo(Operation.CONNECT);
            assertThat(d.subject()).isEqualTo("127.0.0.1:" + connect);
        });
        assertThat(found).anySatisfy(d -> {
            assertThat(d.operation()).isEqualTo(Operation.BIND);
            assertThat(d.subject()).isEqualTo("127.0.0.1:" + bind);
            assertThat(d.details()).containsEntry("blockers", "net.bind_tcp")
                    .containsEntry("allow_yaml", "sandbox:\n  network:\n    mode: proxy\n    bind: [" + bind + "]\n");
        });
    }
}
