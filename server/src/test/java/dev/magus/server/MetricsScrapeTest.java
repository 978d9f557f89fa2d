package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.SandboxException;
import dev.magus.server.client.ServerClient;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetricsScrapeTest {
    @TempDir
    Path root;

    @Test
    void theScrapeIsPrometheusTextWithTheServersAndTheRunsCounters() throws Exception {
        try (Fixture f = new Fixture(root);
                MetricsEndpoint metrics = MetricsEndpoint.start("127.0.0.1:0", f.registry)) {
            assertThat(f.forward(f.run("true")).status()).isZero();
            try {
                ServerClient.connect(f.dir.socket(), "wrong");
            } catch (ServerClient.Refused expected) {
                // counted
            }
            URL url = new URL("http://127.0.0.1:" + metrics.address().getPort() + "/metrics");
            HttpURLConnection http = (HttpURLConnection) url.openConnection();
            assertThat(http.getResponseCode()).isEqualTo(200);
            assertThat(http.getContentType()).startsWith("text/plain");
            String body;
            try (InputStream in = http.getInputStream()) {
                body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            Map<String, Double> samples = parse(body);
            assertThat(samples.get("magus_server_connections_total")).isEqualTo(2.0);
            assertThat(samples.get("magus_server_refusals_total{code=\"MGS2011\"}")).isEqualTo(1.0);
            assertThat(samples.get("magus_server_forwarded_total{outcome=\"started\"}")).isEqualTo(1.0);
            assertThat(samples.keySet()).anyMatch(k -> k.startsWith("magus_runs"));
        }
    }

    @Test
    void theScrapeIsServedOnLoopbackOnly() {
        assertThatThrownBy(() -> MetricsEndpoint.loopback("0.0.0.0:9464")).isInstanceOf(SandboxException.class)
                .hasMessageContaining("loopback only");
        assertThatThrownBy(() -> MetricsEndpoint.loopback("9464")).isInstanceOf(SandboxException.class);
        assertThat(MetricsEndpoint.loopback("localhost:0").getAddress().isLoopbackAddress()).isTrue();
        assertThat(MetricsEndpoint.loopback("[::1]:0").getAddress().isLoopbackAddress()).isTrue();
    }

    /** The text format: {@code name{labels} value} per sample line, comments skipped; every line must parse. */
    static Map<String, Double> parse(String text) {
        Map<String, Double> out = new HashMap<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            assertThat(space).as("a sample line: %s", line).isPositive();
            out.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
        }
        return out;
    }
}
