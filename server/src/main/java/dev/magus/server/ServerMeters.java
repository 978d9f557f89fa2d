package dev.magus.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The server's own meters, next to the runs' ({@code magus.runs}, {@code magus.diagnostics}, …)
 * in the same registry, which {@code --metrics} scrapes and {@code magus server status} shows.
 *
 * <ul>
 *   <li>{@code magus.server.connections}: connections accepted;</li>
 *   <li>{@code magus.server.refusals{code}}: connections refused ({@code MGS2011} for the token,
 *       {@code hello} for a hello late or too large, {@code frame} for a later frame too large,
 *       {@code protocol} for a version or a malformed frame);</li>
 *   <li>{@code magus.server.forwarded{outcome}}: forwarded runs, {@code started}, {@code declined}
 *       (the client runs the work itself) or {@code refused} (MGS2010, MGS2004 before a spawn).</li>
 * </ul>
 */
final class ServerMeters {
    private final MeterRegistry registry;

    ServerMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    void connection() {
        registry.counter("magus.server.connections").increment();
    }

    void refusal(String code) {
        registry.counter("magus.server.refusals", "code", code).increment();
    }

    void forwarded(String outcome) {
        registry.counter("magus.server.forwarded", "outcome", outcome).increment();
    }

    /** Every counter of the registry, named {@code name{tag=value,…}}, for {@code magus server status}. */
    Map<String, Double> counters() {
        Map<String, Double> out = new LinkedHashMap<>();
        for (Meter m : registry.getMeters()) {
            if (m instanceof Counter c) {
                Meter.Id id = m.getId();
                String tags = id.getTags().stream().map(t -> t.getKey() + "=" + t.getValue()).collect(Collectors.joining(","));
                out.put(id.getName() + (tags.isEmpty() ? "" : "{" + tags + "}"), c.count());
            }
        }
        return out;
    }
}
