package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.RunEvent;
import dev.magus.orchestrator.run.RunRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seccomp layer end to end: a real confined child opens a socket its run's rules refuse,
 * prints the error as the tool does, and the run reports a live MGS2015 inferred from it.
 */
class SocketsInRunsTest {
    @TempDir
    Path root;
    TestHost t;

    @BeforeEach
    void setUp() {
        TestHost.assumeLandlock();
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/python3")), "no python3");
        t = new TestHost(root);
    }

    private List<RunEvent> run(String yaml, String... argv) {
        t.yaml(yaml);
        try (Orchestrator o = Orchestrator.builder(t.host()).build()) {
            return TestHost.events(o.submit(RunRequest.builder(t.workspace, argv).build()));
        }
    }

    private static List<Diagnostic> sockets(List<RunEvent> events) {
        return events.stream().filter(e -> e instanceof RunEvent.Diag).map(e -> ((RunEvent.Diag) e).diagnostic())
                .filter(d -> d.code() == Code.MGS2015).toList();
    }

    @Test
    void aUdpSocketUnderNetworkNoneIsAnInferredMgs2015() throws IOException {
        Files.writeString(t.workspace.resolve("udp.py"), "import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n");
        List<RunEvent> events = run("""
                sandbox:
                  mode: required
                  network:
                    mode: none
                """, "/usr/bin/python3", "udp.py");
        assertThat(sockets(events)).as(TestHost.text(events)).singleElement().satisfies(d -> {
            assertThat(d.layer()).isEqualTo(Layer.KERNEL);
            assertThat(d.operation()).isEqualTo(Operation.SOCKET);
            assertThat(d.subject()).isEqualTo("a UDP (datagram) socket");
            assertThat(d.source()).isEqualTo("inferred:stderr");
        });
    }

    @Test
    void aUnixSocketIsRefusedUnlessDeclared() {
        String perl = "socket(my $s, 1, 1, 0) or die \"socket: $!\\n\"; print \"opened\\n\"";
        List<RunEvent> refused = run("""
                sandbox:
                  mode: required
                """, "/usr/bin/perl", "-e", perl);
        assertThat(sockets(refused)).as(TestHost.text(refused)).singleElement().satisfies(d -> {
            assertThat(d.subject()).isEqualTo("a socket");
            assertThat(d.details()).containsEntry("reason", "Unix sockets not declared");
        });
        List<RunEvent> declared = run("""
                sandbox:
                  mode: required
                  network:
                    unix: allow
                """, "/usr/bin/perl", "-e", perl);
        assertThat(TestHost.lines(declared, RunEvent.Stream.STDOUT)).as(TestHost.text(declared)).containsExactly("opened");
        assertThat(sockets(declared)).isEmpty();
    }
}
