package dev.magus.orchestrator.binding;

import dev.magus.events.Code;
import dev.magus.events.DetailKey;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import dev.magus.orchestrator.network.HostResolver;
import dev.magus.orchestrator.network.ProxyLoops;
import dev.magus.policy.PolicyOrOff;
import dev.magus.policy.net.HostVerdict;
import dev.magus.policy.net.NetworkMode;
import dev.magus.policy.net.NetworkPolicy;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

/**
 * A session's HTTP client (reactor-netty), held to the run's network policy as a confined child's
 * connections are through its proxy: the same host patterns, the same refusal of loopback,
 * link-local, metadata and private addresses unless the host is named exactly, the name resolved
 * once and the connection made to the very address that was checked (a second DNS answer never
 * reaches a socket), and every redirect (up to five) checked as a new request. A refusal is
 * MGS2013 with {@code layer=binding}, reported on the session's stream, and the returned
 * {@link Mono} fails with it as a {@link SandboxException}. Mode {@code open} reaches every host,
 * {@code none} none. Connections are pooled per session and closed with it ({@link Sandbox#close}); they run on
 * the event loops of the orchestrator's services ({@link ProxyLoops}), shut down with them.
 */
public final class SandboxHttp {
    private static final int MAX_REDIRECTS = 5;
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final PolicyOrOff policy;
    private final HostResolver resolver;
    private final Consumer<Diagnostic> refused;
    /** The session's pool; throws once the session is closed. */
    private final Supplier<ConnectionProvider> connections;
    private final ProxyLoops loops;

    SandboxHttp(PolicyOrOff policy, HostResolver resolver, Consumer<Diagnostic> refused, Supplier<ConnectionProvider> connections,
            ProxyLoops loops) {
        this.policy = policy;
        this.resolver = resolver;
        this.refused = refused;
        this.connections = connections;
        this.loops = loops;
    }

    /** What came back: the status, the headers (names in lower case) and the whole body. */
    public record Response(int status, Map<String, List<String>> headers, byte[] body) {
        public Response {
            headers = Map.copyOf(headers);
        }

        public Optional<String> header(String name) {
            return Optional.ofNullable(headers.get(name.toLowerCase(Locale.ROOT))).flatMap(v -> v.stream().findFirst());
        }
    }

    /** {@code GET uri}. */
    public Mono<Response> get(URI uri) {
        return send("GET", uri, new byte[0], 0);
    }

    /** {@code POST uri} with {@code body}. */
    public Mono<Response> post(URI uri, byte[] body) {
        return send("POST", uri, body.clone(), 0);
    }

    private Mono<Response> send(String method, URI uri, byte[] body, int hops) {
        return Mono.fromCallable(() -> checked(uri))
                .subscribeOn(Schedulers.boundedElastic())
                .flatMap(address -> exchange(method, uri, body, address))
                .flatMap(r -> {
                    Optional<String> location = r.header("location");
                    if (r.status() / 100 != 3 || location.isEmpty() || r.status() == 304) {
                        return Mono.just(r);
                    }
                    if (hops >= MAX_REDIRECTS) {
                        return Mono.error(new java.io.IOException("more than " + MAX_REDIRECTS + " redirects from " + uri));
                    }
                    URI next = uri.resolve(location.get());
                    boolean keepBody = r.status() == 307 || r.status() == 308;
                    return send(keepBody ? method : "GET", next, keepBody ? body : new byte[0], hops + 1);
                });
    }

    /** The address to connect to, or the refusal reported and thrown. Blocks (resolution). */
    private InetSocketAddress checked(URI uri) throws UnknownHostException {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new IllegalArgumentException("not an http or https URL: " + uri);
        }
        String host = uri.getHost();
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException("no host in " + uri);
        }
        String bare = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        int port = uri.getPort() >= 0 ? uri.getPort() : scheme.equals("https") ? 443 : 80;
        NetworkPolicy network = policy.policy().map(p -> p.network()).orElse(NetworkPolicy.OPEN);
        if (network.mode() == NetworkMode.OPEN) {
            return new InetSocketAddress(bare, port);
        }
        if (network.mode() == NetworkMode.NONE) {
            throw refuse(bare, port, "the run's network mode is none", "mode none");
        }
        List<InetAddress> resolved;
        try {
            resolved = resolver.resolve(bare);
        } catch (UnknownHostException e) {
            resolved = List.of();
        }
        HostVerdict verdict = network.decide(bare, resolved);
        if (verdict instanceof HostVerdict.Allowed allowed) {
            InetAddress a = allowed.addresses().get(0);
            // The checked address, carrying the name for the Host header, SNI and the certificate check.
            return new InetSocketAddress(InetAddress.getByAddress(bare, a.getAddress()), port);
        }
        if (verdict instanceof HostVerdict.Internal internal) {
            throw refuse(bare, port, "resolves to " + internal.address().getHostAddress() + " (" + internal.addressClass()
                    + "), which is reached only by a host declared exactly", "internal address");
        }
        if (verdict instanceof HostVerdict.Unresolved) {
            throw refuse(bare, port, "has no address", "unresolved");
        }
        throw refuse(bare, port, "is not a declared host (network.allow in magus.yaml, or --allow-host)", "not declared");
    }

    private Mono<Response> exchange(String method, URI uri, byte[] body, InetSocketAddress address) {
        HttpClient client = HttpClient.create(connections.get())
                .runOn(loops.group())
                .remoteAddress(() -> address)
                .followRedirect(false)
                .responseTimeout(TIMEOUT)
                .headers(h -> h.set(HttpHeaderNames.HOST, uri.getPort() >= 0 ? uri.getHost() + ":" + uri.getPort() : uri.getHost()));
        if ("https".equalsIgnoreCase(uri.getScheme())) {
            client = client.secure();
        }
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        String target = uri.getRawQuery() == null ? path : path + "?" + uri.getRawQuery();
        return client.request(HttpMethod.valueOf(method))
                .uri(target)
                .send(body.length == 0 ? ByteBufFlux.empty() : ByteBufFlux.fromInbound(Mono.just(body)))
                .responseSingle((r, content) -> content.asByteArray().defaultIfEmpty(new byte[0]).map(bytes -> {
                    Map<String, List<String>> headers = new LinkedHashMap<>();
                    r.responseHeaders().forEach(e -> headers.computeIfAbsent(e.getKey().toLowerCase(Locale.ROOT),
                            k -> new java.util.ArrayList<>()).add(e.getValue()));
                    headers.replaceAll((k, v) -> List.copyOf(v));
                    return new Response(r.status().code(), headers, bytes);
                }));
    }

    private SandboxException refuse(String host, int port, String why, String reason) {
        String authority = host + ":" + port;
        Diagnostic d = new Diagnostic(Code.MGS2013, "connect denied: " + authority + " " + why, authority, Operation.CONNECT,
                Layer.BINDING, "binding", Map.of(DetailKey.REASON.key(), reason));
        refused.accept(d);
        return new SandboxException(d);
    }
}
