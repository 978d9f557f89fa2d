package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.RunEvent;
import dev.magus.events.SandboxException;
import dev.magus.orchestrator.binding.Sandbox;
import dev.magus.orchestrator.binding.SandboxHttp;
import dev.magus.orchestrator.network.HostResolver;
import dev.magus.orchestrator.run.RunRequest;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The binding layer's HTTP client against a server on loopback, names mapped by the resolver
 * seam: a declared host is reached (at the address that was checked, with its own name in
 * {@code Host}); an undeclared one, a pattern whose answer is loopback, the metadata address and
 * a redirect to an undeclared host are refused with MGS2013, {@code layer=binding}, and never
 * reach the server.
 */
class SandboxHttpTest {
    private static final HostResolver RESOLVER = host -> switch (host) {
        case "api.magus.test", "evil.magus.test", "wild.magus.test" -> List.of(InetAddress.getByName("127.0.0.1"));
        case "meta.magus.test" -> List.of(InetAddress.getByName("169.254.169.254"));
        default -> throw new UnknownHostException(host);
    };

    @TempDir
    Path root;
    TestHost t;
    HttpServer server;
    final List<String> requests = new CopyOnWriteArrayList<>();
    Sandbox session;
    SandboxHttp http;

    @BeforeEach
    void setUp() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 50);
        server.createContext("/", exchange -> {
            String path = exchange.getRequestURI().getPath();
            requests.add(path + " host=" + exchange.getRequestHeaders().getFirst("Host"));
            if (path.startsWith("/away")) {
                exchange.getResponseHeaders().add("Location", "http://evil.magus.test:" + port() + "/stolen");
                exchange.sendResponseHeaders(302, -1);
            } else if (path.startsWith("/next")) {
                exchange.getResponseHeaders().add("Location", "/hello");
                exchange.sendResponseHeaders(301, -1);
            } else {
                byte[] body = "hello\n".getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
            }
            exchange.close();
        });
        server.start();
        t = new TestHost(root).yaml("""
                sandbox:
                  mode: best-effort
                  network:
                    mode: proxy
                    allow: [api.magus.test, "*.wildcard.test", wild.magus.test.invalid]
                """);
        session = Sandbox.open(t.orchestrator(), t.host(), RunRequest.builder(t.workspace, "true").allowHost("*.pattern.magus.test").build());
        http = session.http(RESOLVER);
    }

    @AfterEach
    void tearDown() {
        if (server != null) {
            server.stop(0);
        }
        if (session != null) {
            session.close();
        }
    }

    private int port() {
        return server.getAddress().getPort();
    }

    private URI uri(String host, String path) {
        return URI.create("http://" + host + ":" + port() + path);
    }

    private void refused(URI uri, String why) {
        assertThatThrownBy(() -> http.get(uri).block(TestHost.DEADLINE))
                .as(why)
                .isInstanceOf(SandboxException.class)
                .satisfies(e -> assertThat(((SandboxException) e).code()).isEqualTo(Code.MGS2013))
                .satisfies(e -> assertThat(((SandboxException) e).diagnostic().layer()).isEqualTo(Layer.BINDING));
    }

    @Test
    void aDeclaredHostIsReachedAtTheCheckedAddressWithItsOwnName() {
        SandboxHttp.Response r = http.get(uri("api.magus.test", "/hello")).block(TestHost.DEADLINE);
        assertThat(r.status()).isEqualTo(200);
        assertThat(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo("hello\n");
        assertThat(requests).containsExactly("/hello host=api.magus.test:" + port());
    }

    @Test
    void itsConnectionsRunOnTheLoopsOfTheOrchestratorsServicesAndEndWithTheSession() {
        assertThat(t.services.proxyLoops().started()).as("no loop before the first request").isFalse();
        String thread = http.get(uri("api.magus.test", "/hello")).map(r -> Thread.currentThread().getName())
                .block(TestHost.DEADLINE);
        assertThat(thread).as("the response arrives on the services' loops, not reactor-netty's global ones")
                .startsWith("magus-proxy");
        assertThat(t.services.proxyLoops().started()).isTrue();
        session.close();
        assertThatThrownBy(() -> http.get(uri("api.magus.test", "/hello")).block(TestHost.DEADLINE))
                .as("the session's connections are closed with it").isInstanceOf(IllegalStateException.class);
        assertThat(requests).containsExactly("/hello host=api.magus.test:" + port());
    }

    @Test
    void aRedirectToADeclaredHostIsFollowed() {
        SandboxHttp.Response r = http.get(uri("api.magus.test", "/next")).block(TestHost.DEADLINE);
        assertThat(r.status()).isEqualTo(200);
        assertThat(requests).containsExactly("/next host=api.magus.test:" + port(), "/hello host=api.magus.test:" + port());
    }

    @Test
    void anUndeclaredHostIsRefusedAndNeverReached() {
        refused(uri("evil.magus.test", "/hello"), "undeclared");
        assertThat(requests).isEmpty();
    }

    @Test
    void aNameDeclaredByAPatternThatResolvesToLoopbackIsRefused() {
        HostResolver rebinding = host -> List.of(InetAddress.getByName("127.0.0.1"));
        SandboxHttp viaPattern = session.http(rebinding);
        assertThatThrownBy(() -> viaPattern.get(uri("x.pattern.magus.test", "/hello")).block(TestHost.DEADLINE))
                .isInstanceOf(SandboxException.class)
                .hasMessageContaining("127.0.0.1");
        assertThat(requests).isEmpty();
    }

    @Test
    void theMetadataAddressIsRefused() {
        refused(URI.create("http://169.254.169.254/latest/meta-data/"), "metadata literal");
        refused(uri("meta.magus.test", "/latest"), "a name for the metadata address");
    }

    @Test
    void aRedirectToAnUndeclaredHostIsRefusedBeforeItIsFollowed() {
        refused(uri("api.magus.test", "/away"), "redirect");
        assertThat(requests).containsExactly("/away host=api.magus.test:" + port());
        session.close();
        List<Diagnostic> diags = session.events().ofType(RunEvent.Diag.class).map(RunEvent.Diag::diagnostic).collectList()
                .block(TestHost.DEADLINE);
        assertThat(diags).extracting(Diagnostic::code).containsExactly(Code.MGS2013);
        assertThat(diags.get(0).subject()).isEqualTo("evil.magus.test:" + port());
    }
}
