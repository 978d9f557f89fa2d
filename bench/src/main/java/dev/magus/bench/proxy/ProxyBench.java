package dev.magus.bench.proxy;

import dev.magus.orchestrator.network.NetworkProxy;
import dev.magus.orchestrator.network.ProxyLoops;
import dev.magus.policy.decl.DeclLayer;
import dev.magus.policy.decl.Site;
import dev.magus.policy.decl.NetworkDecl;
import dev.magus.policy.net.NetworkPolicy;
import java.io.IOException;
import java.net.InetAddress;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What a run's network proxy costs: one request on a fresh connection, straight to an origin
 * on loopback and through the proxy (plain HTTP, and a CONNECT tunnel), with a response of
 * {@code bytes} bytes. At 2 bytes the time is the added latency (the proxy's accept, head
 * parse, policy check, resolution on a bounded-elastic thread and second connect); at 64 MiB
 * it is throughput (the relay's copying). The name resolves through the proxy's seam to
 * 127.0.0.1 and is declared exactly, so nothing leaves loopback.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ProxyBench {
    static final String HOST = "origin.bench.test";

    @Param({"2", "67108864"})
    public long bytes;

    private Origin origin;
    private ProxyLoops loops;
    private NetworkProxy proxy;
    private String direct;
    private String proxied;
    private String authority;

    @Setup
    public void start() {
        origin = new Origin();
        NetworkPolicy policy = NetworkPolicy.merge(List.of((NetworkDecl.declare(Optional.of("proxy"),
                List.of(HOST), List.of(), List.of(), DeclLayer.workspace(), Site.of("bench", "sandbox.network"))).layered("workspace")));
        loops = new ProxyLoops();
        proxy = NetworkProxy.start(loops.group(), policy, host -> List.of(InetAddress.getByName("127.0.0.1")), d -> {
            throw new IllegalStateException("refused in a benchmark: " + d.oneLine());
        });
        authority = HOST + ":" + origin.port();
        String path = bytes == 2 ? "/ok" : "/bytes/" + bytes;
        direct = "GET " + path + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n";
        proxied = "GET http://" + authority + path + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n";
    }

    @TearDown
    public void stop() throws IOException {
        proxy.close();
        loops.close();
        origin.close();
    }

    @Benchmark
    public long direct() throws IOException {
        return Client.exchange(origin.port(), direct);
    }

    @Benchmark
    public long proxiedHttp() throws IOException {
        return Client.exchange(proxy.port(), proxied);
    }

    @Benchmark
    public long proxiedConnect() throws IOException {
        return Client.tunnel(proxy.port(), authority, direct);
    }
}
