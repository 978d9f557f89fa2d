package dev.magus.bench.proxy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** One HTTP/1.1 request per connection over a plain socket: what the benchmark times. */
final class Client {
    private Client() {
    }

    /** Connects to 127.0.0.1:{@code port}, sends {@code head}, reads the response to its end; the bytes read. */
    static long exchange(int port, String head) throws IOException {
        try (Socket s = new Socket(InetAddress.getByName("127.0.0.1"), port)) {
            s.setTcpNoDelay(true);
            s.getOutputStream().write(head.getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            return drain(s.getInputStream());
        }
    }

    /** Through a CONNECT tunnel: the proxy's answer, then the request inside. */
    static long tunnel(int proxyPort, String authority, String head) throws IOException {
        try (Socket s = new Socket(InetAddress.getByName("127.0.0.1"), proxyPort)) {
            s.setTcpNoDelay(true);
            s.getOutputStream().write(("CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            String answer = readHead(s.getInputStream());
            if (!answer.startsWith("HTTP/1.1 200")) {
                throw new IOException("tunnel refused: " + answer);
            }
            s.getOutputStream().write(head.getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            return drain(s.getInputStream());
        }
    }

    private static long drain(InputStream in) throws IOException {
        byte[] buf = new byte[64 * 1024];
        long total = 0;
        for (int n; (n = in.read(buf)) > 0; ) {
            total += n;
        }
        return total;
    }

    /** Reads up to and including the blank line that ends a head, a byte at a time. */
    static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int state = 0;
        for (int c; (c = in.read()) >= 0; ) {
            head.write(c);
            state = (c == '\r' && (state == 0 || state == 2)) ? state + 1 : (c == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
            if (state == 4) {
                break;
            }
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }
}
