package dev.magus.orchestrator.network;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The head of one request a proxy client sent: {@code CONNECT host:port} (a tunnel) or an
 * absolute-form {@code GET http://host[:port]/path} (plain HTTP). Pure: bytes in, a value or
 * the reason it is not one out.
 *
 * @param method  as sent
 * @param host    the host the client named, lower case; an IPv6 literal in brackets
 * @param port    the port, 80 by default for plain HTTP
 * @param path    the origin-form target to send upstream ({@code /x?y}); empty for CONNECT
 * @param version {@code HTTP/1.1} or {@code HTTP/1.0}
 * @param headers the header lines, as sent, without the line ends
 */
public record RequestHead(String method, String host, int port, String path, String version, List<String> headers) {
    /** Longer heads are refused: no package manager sends one, and the proxy buffers it. */
    public static final int MAX_BYTES = 64 * 1024;
    /** Headers that concern the hop to the proxy, never the origin. */
    private static final Set<String> HOP = Set.of("proxy-connection", "proxy-authorization", "connection", "keep-alive");

    public RequestHead {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(version, "version");
        headers = List.copyOf(headers);
    }

    /** A head, or why not, or not yet whole. */
    public sealed interface Parse {
        record Whole(RequestHead head, int length) implements Parse {
        }

        record Incomplete() implements Parse {
        }

        record Bad(String why) implements Parse {
        }
    }

    public boolean isConnect() {
        return method.equals("CONNECT");
    }

    /** {@code host:port} as diagnostics show it. */
    public String authority() {
        return host + ":" + port;
    }

    /**
     * Parses the head at the start of {@code bytes}; {@code length} is the head's length with
     * its blank line, so what follows is the body or the tunnel's first bytes.
     */
    public static Parse parse(byte[] bytes, int size) {
        int end = -1;
        int ending = 0;
        for (int i = 0; i + 1 < size; i++) {
            if (bytes[i] == '\n' && bytes[i + 1] == '\n') {
                end = i;
                ending = 2;
                break;
            }
            if (i + 3 < size && bytes[i] == '\r' && bytes[i + 1] == '\n' && bytes[i + 2] == '\r' && bytes[i + 3] == '\n') {
                end = i;
                ending = 4;
                break;
            }
        }
        if (end < 0) {
            return size >= MAX_BYTES ? new Parse.Bad("request head longer than " + MAX_BYTES + " bytes") : new Parse.Incomplete();
        }
        String text = new String(bytes, 0, end, StandardCharsets.ISO_8859_1);
        List<String> lines = new ArrayList<>(List.of(text.split("\r?\n", -1)));
        String[] start = lines.remove(0).split(" ", -1);
        if (start.length != 3 || !start[2].startsWith("HTTP/1.")) {
            return new Parse.Bad("not an HTTP/1 request line");
        }
        String method = start[0];
        String target = start[1];
        try {
            if (method.equals("CONNECT")) {
                int colon = target.lastIndexOf(':');
                if (colon <= 0 || target.endsWith("]")) {
                    return new Parse.Bad("CONNECT needs host:port, not " + target);
                }
                int port = port(target.substring(colon + 1));
                return new Parse.Whole(new RequestHead(method, host(target.substring(0, colon)), port, "", start[2], lines),
                        end + ending);
            }
            URI uri = new URI(target);
            if (!"http".equalsIgnoreCase(uri.getScheme()) || uri.getRawAuthority() == null || uri.getHost() == null) {
                return new Parse.Bad("a proxy takes CONNECT host:port or an absolute http:// URL, not " + target);
            }
            if (uri.getRawUserInfo() != null) {
                return new Parse.Bad("credentials in a proxied URL are not forwarded");
            }
            String path = (uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath())
                    + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
            int port = uri.getPort() < 0 ? 80 : uri.getPort();
            String host = host(uri.getHost());
            Optional<String> otherHost = hostHeaderMismatch(host, lines);
            if (otherHost.isPresent()) {
                return new Parse.Bad(otherHost.get());
            }
            return new Parse.Whole(new RequestHead(method, host, port, path, start[2], lines), end + ending);
        } catch (URISyntaxException | IllegalArgumentException e) {
            return new Parse.Bad("cannot read the target " + target + ": " + e.getMessage());
        }
    }

    /**
     * Why the {@code Host} headers of a plain-HTTP request do not name its target, when they
     * do not: the proxy checks and connects to the URL's host, and an origin serving several
     * names on one address (a CDN, a shared front) answers for the header's, which the policy
     * never saw. More than one {@code Host} header is refused too, since origins disagree on
     * which one counts.
     */
    static Optional<String> hostHeaderMismatch(String target, List<String> headers) {
        int seen = 0;
        for (String h : headers) {
            int colon = h.indexOf(':');
            if (colon < 0 || !h.substring(0, colon).strip().equalsIgnoreCase("host")) {
                continue;
            }
            seen++;
            if (seen > 1) {
                return Optional.of("more than one Host header");
            }
            String value = h.substring(colon + 1).strip().toLowerCase(Locale.ROOT);
            String named = value.startsWith("[") ? value.substring(0, Math.max(value.indexOf(']') + 1, 1))
                    : value.indexOf(':') >= 0 ? value.substring(0, value.indexOf(':')) : value;
            if (named.endsWith(".")) {
                named = named.substring(0, named.length() - 1);
            }
            String t = target.endsWith(".") ? target.substring(0, target.length() - 1) : target;
            if (!named.equals(t)) {
                return Optional.of("the Host header names " + (named.isEmpty() ? "no host" : named)
                        + ", not the request's target " + target);
            }
        }
        return Optional.empty();
    }

    private static String host(String h) {
        String lower = h.toLowerCase(Locale.ROOT);
        if (lower.isEmpty()) {
            throw new IllegalArgumentException("empty host");
        }
        return lower;
    }

    private static int port(String p) {
        int port = p.matches("[0-9]{1,5}") ? Integer.parseInt(p) : -1;
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("not a port: " + p);
        }
        return port;
    }

    /** The head to send the origin for plain HTTP: origin-form target, hop headers dropped, one request. */
    public byte[] upstream() {
        StringBuilder sb = new StringBuilder();
        sb.append(method).append(' ').append(path).append(' ').append(version).append("\r\n");
        boolean hostHeader = false;
        for (String h : headers) {
            int colon = h.indexOf(':');
            String name = colon < 0 ? h.strip().toLowerCase(Locale.ROOT) : h.substring(0, colon).strip().toLowerCase(Locale.ROOT);
            if (HOP.contains(name)) {
                continue;
            }
            hostHeader |= name.equals("host");
            sb.append(h).append("\r\n");
        }
        if (!hostHeader) {
            sb.append("Host: ").append(port == 80 ? host : authority()).append("\r\n");
        }
        // One request per connection: the next one comes through the proxy again and is checked again.
        sb.append("Connection: close\r\n\r\n");
        return sb.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /** The host without IPv6 brackets, for resolution and the policy. */
    public String bareHost() {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    static Optional<String> header(List<String> headers, String name) {
        for (String h : headers) {
            int colon = h.indexOf(':');
            if (colon > 0 && h.substring(0, colon).strip().equalsIgnoreCase(name)) {
                return Optional.of(h.substring(colon + 1).strip());
            }
        }
        return Optional.empty();
    }
}
