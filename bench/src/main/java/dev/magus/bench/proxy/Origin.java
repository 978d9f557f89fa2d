package dev.magus.bench.proxy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * An HTTP origin on 127.0.0.1 as plain as can be, so the benchmark measures the proxy and not
 * the server: each connection gets one request read up to its blank line, then a response of
 * {@code /bytes/N} bytes (or {@code ok}), then is closed.
 */
final class Origin implements AutoCloseable {
    private final ServerSocket server;
    private static final byte[] CHUNK = new byte[64 * 1024];

    Origin() {
        try {
            server = new ServerSocket(0, 200, InetAddress.getByName("127.0.0.1"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread t = new Thread(this::accept, "bench-origin");
        t.setDaemon(true);
        t.start();
    }

    int port() {
        return server.getLocalPort();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                Thread t = new Thread(() -> serve(s), "bench-origin-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private static void serve(Socket s) {
        try (s) {
            String head = Client.readHead(s.getInputStream());
            String path = head.substring(head.indexOf(' ') + 1, head.indexOf(' ', head.indexOf(' ') + 1));
            long n = path.startsWith("/bytes/") ? Long.parseLong(path.substring(7)) : 2;
            OutputStream out = s.getOutputStream();
            out.write(("HTTP/1.1 200 OK\r\nContent-Length: " + n + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            if (n == 2) {
                out.write("ok".getBytes(StandardCharsets.ISO_8859_1));
            }
            for (long left = n; n != 2 && left > 0; left -= CHUNK.length) {
                out.write(CHUNK, 0, (int) Math.min(CHUNK.length, left));
            }
            out.flush();
        } catch (IOException | RuntimeException e) {
            // the client went away
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
