package dev.magus.orchestrator;

import dev.magus.orchestrator.run.Host;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;

/**
 * A small HTTP server on 127.0.0.1 for the network tests: {@code /hello} answers {@code hello},
 * anything else is served from {@code root} when given (a Maven repository, say). It records
 * each request's path and {@code Host} header, so a test can tell a proxied request (Host is
 * the declared name) from a direct one.
 */
final class LoopbackHttp implements AutoCloseable {
    final HttpServer server;
    final List<String> requests = new CopyOnWriteArrayList<>();

    LoopbackHttp(Path root) {
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 50);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.setExecutor(Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "test-http");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/", exchange -> {
            String path = exchange.getRequestURI().getPath();
            requests.add(path + " host=" + exchange.getRequestHeaders().getFirst("Host"));
            byte[] body;
            int status = 200;
            if (path.equals("/hello")) {
                body = "hello\n".getBytes(StandardCharsets.UTF_8);
            } else {
                Path file = root == null ? null : root.resolve(path.substring(1)).normalize();
                if (file != null && file.startsWith(root) && Files.isRegularFile(file)) {
                    body = Files.readAllBytes(file);
                } else {
                    status = 404;
                    body = "not found\n".getBytes(StandardCharsets.UTF_8);
                }
            }
            if (exchange.getRequestMethod().equals("HEAD")) {
                exchange.sendResponseHeaders(status, -1);
            } else {
                exchange.sendResponseHeaders(status, body.length);
                exchange.getResponseBody().write(body);
            }
            exchange.close();
        });
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
