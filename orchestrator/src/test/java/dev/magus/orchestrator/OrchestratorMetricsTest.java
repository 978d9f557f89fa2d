package dev.magus.orchestrator;

import dev.magus.orchestrator.run.Host;

import dev.magus.env.platform.Platform;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.RunResult;
import dev.magus.policy.HostFacts;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OrchestratorMetricsTest {

    @Test
    void everyRunIsRecordedWithLowCardinalityTagsAndTheProbedAbiIsAGauge(@TempDir Path dir) throws Exception {
        Path home = Files.createDirectories(dir.resolve("home"));
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: best-effort\n");
        Host host = new Host(Map.of("PATH", "/usr/bin:/bin", "HOME", home.toString(), "GITHUB_TOKEN", "ghp_FAKE0000"),
                home, 1000, Platform.LINUX, List.of(), Optional.empty(), Files.createDirectories(dir.resolve("tmp")));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        // ABI 0: best-effort runs with the binding layer only, so this test needs no kernel support.
        RunResult ok;
        RunResult failed;
        try (Orchestrator o = Orchestrator.builder(host).probe(LandlockProbe.fixed(0)).meterRegistry(registry).build()) {
            ok = o.submit(RunRequest.builder(ws, "true").build()).result().block(Duration.ofSeconds(30));
            failed = o.submit(RunRequest.builder(ws, "false").build()).result().block(Duration.ofSeconds(30));
        }
        assertThat(ok.status()).isZero();
        assertThat(failed.status()).isEqualTo(1);

        assertThat(registry.get("magus.runs").tag("outcome", "ok").tag("mode", "best-effort").timer().count()).isEqualTo(1);
        assertThat(registry.get("magus.runs").tag("outcome", "failed").timer().count()).isEqualTo(1);
        assertThat(registry.get("magus.landlock.abi").gauge().value()).isZero();
        assertThat(registry.get("magus.env.dropped").summary().totalAmount()).isEqualTo(2.0); // GITHUB_TOKEN, once per run
        assertThat(registry.get("magus.diagnostics").tag("code", "MGS2003").counter().count()).isEqualTo(2);
        assertThat(registry.getMeters()).allSatisfy(m -> m.getId().getTags()
                .forEach(t -> assertThat(t.getValue()).doesNotContain("/")));
    }

    @Test
    void aSecondBuildOfTheSameBuilderCountsEachRunOnce(@TempDir Path dir) throws Exception {
        Path home = Files.createDirectories(dir.resolve("home"));
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Host host = new Host(Map.of("PATH", "/usr/bin:/bin", "HOME", home.toString()),
                home, 1000, Platform.LINUX, List.of(), Optional.empty(), Files.createDirectories(dir.resolve("tmp")));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Orchestrator.Builder builder = Orchestrator.builder(host).probe(LandlockProbe.fixed(0)).meterRegistry(registry);
        try (Orchestrator first = builder.build(); Orchestrator second = builder.build()) {
            assertThat(second).isNotSameAs(first);
            second.submit(RunRequest.builder(ws, "true").build()).result().block(Duration.ofSeconds(30));
        }

        assertThat(registry.get("magus.runs").timer().count()).isEqualTo(1);
    }
}
