package dev.magus.orchestrator.network;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.magus.events.Diagnostic;
import dev.magus.policy.decl.DeclLayer;
import dev.magus.policy.decl.Site;
import dev.magus.policy.decl.NetworkDecl;
import dev.magus.policy.net.NetworkPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The proxy alone, driven over raw sockets on loopback; names are mapped to 127.0.0.1 by the resolver seam. */
class NetworkProxyTest {
    HttpServer origin;
    final ProxyLoops loops = new ProxyLoops();
    NetworkProxy proxy;
    final List<Diagnostic> refused = new CopyOnWriteArrayList<>();

    static final HostResolver RESOLVER = host -> switch (host) {
        case "repo.magus.test", "other.magus.test", "a.magus.test" -> List.of(InetAddress.getByName("127.0.0.1"));
        case "meta.magus.test" -> List.of(InetAddress.getByName("169.254.169.254"));
        default -> throw new UnknownHostException(host);
    };

    @BeforeEach
    void start() throws IOException {
        origin = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 10);
        origin.createContext("/", ex -> {
            byte[] body = ("hello " + ex.getRequestURI() + " " + ex.getRequestHeaders().getFirst("Host")).getBytes();
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        origin.start();
        NetworkPolicy policy = NetworkPolicy.merge(List.of((NetworkDecl.declare(Optional.of("proxy"),
                List.of("repo.magus.test", "*.magus.test"), List.of(), List.of(), DeclLayer.workspace(),
                Site.of("workspace", "sandbox.network"))).layered("workspace")));
        proxy = NetworkProxy.start(loops.group(), policy, RESOLVER, refused::add);
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
        loops.close();
        origin.stop(0);
    }

    private String exchange(String request) throws IOException {
        try (Socket s = new Socket(InetAddress.getByName("127.0.0.1"), proxy.port())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    @Test
    void plainHttpToADeclaredHostIsForwardedInOriginForm() throws IOException {
        int port = origin.getAddress().getPort();
        String r = exchange("GET http://repo.magus.test:" + port + "/x?y=1 HTTP/1.1\r\nHost: repo.magus.test:" + port
                + "\r\nProxy-Connection: keep-alive\r\n\r\n");
        assertThat(r).startsWith("HTTP/1.1 200").endsWith("hello /x?y=1 repo.magus.test:" + port);
        assertThat(refused).isEmpty();
    }

    @Test
    void connectTunnelsToADeclaredHost() throws IOException {
        int port = origin.getAddress().getPort();
        String r = exchange("CONNECT repo.magus.test:" + port + " HTTP/1.1\r\nHost: repo.magus.test:" + port + "\r\n\r\n"
                + "GET /t HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertThat(r).startsWith("HTTP/1.1 200 Connection Established\r\n\r\nHTTP/1.1 200").endsWith("hello /t x");
    }

    @Test
    void undeclaredAndInsideAreRefusedWith403() throws IOException {
        assertThat(exchange("GET http://evil.example:80/ HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 403");
        assertThat(exchange("CONNECT a.magus.test:443 HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 403");
        assertThat(exchange("CONNECT meta.magus.test:80 HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 403");
        assertThat(refused).extracting(Diagnostic::subject).containsExactly("evil.example:80", "a.magus.test:443",
                "meta.magus.test:80");
        assertThat(exchange("GET /relative HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 400");
    }

    @Test
    void aPlainHttpRequestWhoseHostHeaderNamesAnotherHostIsRefused() throws IOException {
        int port = origin.getAddress().getPort();
        String r = exchange("GET http://repo.magus.test:" + port + "/x HTTP/1.1\r\nHost: internal.magus.test\r\n\r\n");
        assertThat(r).startsWith("HTTP/1.1 400").contains("names internal.magus.test, not the request's target repo.magus.test");
        assertThat(exchange("GET http://repo.magus.test:" + port + "/x HTTP/1.1\r\nHost: repo.magus.test\r\nhost: other\r\n\r\n"))
                .startsWith("HTTP/1.1 400").contains("more than one Host header");
        assertThat(RequestHead.hostHeaderMismatch("repo.magus.test", java.util.List.of("Host: REPO.magus.test.:8080")))
                .isEmpty();
        assertThat(RequestHead.hostHeaderMismatch("[::1]", java.util.List.of("Host: [::1]:80"))).isEmpty();
        assertThat(RequestHead.hostHeaderMismatch("a.test", java.util.List.of("X-Host: b.test"))).isEmpty();
        assertThat(RequestHead.hostHeaderMismatch("a.test", java.util.List.of("Host:"))).isPresent();
    }
}
