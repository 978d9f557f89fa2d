package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.server.protocol.Frame;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A forwarded run under {@code network: proxy} gets its own proxy, started by the server for
 * that run, and {@code --allow-host} travels in the frame to it. The origin is an HTTP server on
 * 127.0.0.1 and the host is {@code localhost} (from /etc/hosts): the proxy refuses a name that
 * resolves to loopback unless that exact host is declared, so only the forwarded
 * {@code --allow-host localhost} lets the request through. Nothing leaves loopback.
 */
class ForwardedNetworkTest {
    @TempDir
    Path root;
    Fixture f;
    HttpServer origin;
    final List<String> requests = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        int abi = LandlockProbe.kernel().abi();
        String why = "forwarded network test skipped: Landlock ABI " + abi + " here, TCP rules need 4";
        if (abi < 4) {
            System.err.println(why);
        }
        Assumptions.assumeTrue(abi >= 4, why);
        f = new Fixture(root);
        f.yaml("sandbox:\n  mode: required\n  network:\n    mode: proxy\n");
        origin = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
        origin.createContext("/", exchange -> {
            requests.add(exchange.getRequestURI().getPath());
            byte[] body = "hello\n".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        origin.start();
    }

    @AfterEach
    void stop() {
        if (origin != null) {
            origin.stop(0);
        }
        if (f != null) {
            f.close();
        }
    }

    private Frame.Command submit(List<String> allowHosts) {
        // curl reads http_proxy itself; --noproxy '' overrides the NO_PROXY that exempts localhost.
        String script = "curl -sS --noproxy '' -o /dev/null -w 'code=%{http_code}\\n' http://localhost:"
                + origin.getAddress().getPort() + "/hello; echo \"proxy=${http_proxy:-none}\"";
        List<String> options = new java.util.ArrayList<>();
        allowHosts.forEach(h -> options.addAll(List.of("--allow-host", h)));
        return f.run(f.env, options, "sh", "-c", script);
    }

    @Test
    void theServersRunHasItsOwnProxyAndTheForwardedAllowHostReachesIt() throws Exception {
        Fixture.Result without = f.forward(submit(List.of()));
        assertThat(without.out()).as(without.out()).contains("code=403").contains("proxy=http://127.0.0.1:");
        assertThat(without.codes()).contains("MGS2013");
        assertThat(requests).isEmpty();

        Fixture.Result with = f.forward(submit(List.of("localhost")));
        assertThat(with.out()).as(with.out()).contains("code=200");
        assertThat(with.codes()).doesNotContain("MGS2013");
        assertThat(requests).containsExactly("/hello");
        assertThat(with.status()).isZero();
    }
}
