package dev.magus.server;

import com.sun.net.httpserver.HttpServer;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * {@code magus server --metrics ADDR}: the Prometheus text of the server's registry at
 * {@code http://ADDR/metrics}, on loopback only. The scrape needs no framework: the JDK's own
 * HTTP server, on one thread of its own, keeps it off the event loops that move frames.
 */
public final class MetricsEndpoint implements AutoCloseable {
    private final HttpServer http;
    private final ExecutorService executor;

    private MetricsEndpoint(HttpServer http, ExecutorService executor) {
        this.http = http;
        this.executor = executor;
    }

    /**
     * @param address {@code HOST:PORT} (port 0 picks one); the host must be a loopback address
     * @throws SandboxException MGS2004 for an address that is malformed or not loopback
     */
    public static MetricsEndpoint start(String address, PrometheusMeterRegistry registry) throws IOException {
        InetSocketAddress bind = loopback(address);
        HttpServer http = HttpServer.create(bind, 8);
        http.createContext("/metrics", exchange -> {
            byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream o = exchange.getResponseBody()) {
                o.write(body);
            }
        });
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "magus-metrics");
            t.setDaemon(true);
            return t;
        });
        http.setExecutor(executor);
        http.start();
        return new MetricsEndpoint(http, executor);
    }

    static InetSocketAddress loopback(String address) {
        int colon = address.lastIndexOf(':');
        String host = colon < 0 ? "" : address.substring(0, colon).replaceAll("^\\[|\\]$", "");
        int port;
        try {
            port = Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw refusal(address, "expected HOST:PORT, e.g. 127.0.0.1:9464");
        }
        if (host.isEmpty() || port < 0 || port > 65535) {
            throw refusal(address, "expected HOST:PORT, e.g. 127.0.0.1:9464");
        }
        InetAddress ip;
        try {
            ip = InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw refusal(address, "unknown host " + host);
        }
        if (!ip.isLoopbackAddress()) {
            throw refusal(address, "the scrape is served on loopback only (127.0.0.1, ::1 or localhost), not " + host);
        }
        return new InetSocketAddress(ip, port);
    }

    private static SandboxException refusal(String address, String why) {
        return new SandboxException(Diagnostic.of(Code.MGS2004, "--metrics " + address + ": " + why, "", Operation.NONE,
                Layer.POLICY, "--metrics"));
    }

    /** The bound address (with the port chosen when 0 was asked for). */
    public InetSocketAddress address() {
        return http.getAddress();
    }

    @Override
    public void close() {
        http.stop(0);
        executor.shutdownNow();
    }
}
