package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.server.client.RunForwarder;
import dev.magus.server.client.ServerForwarder;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code magus run}'s side: find the server from the client's environment, forward, or leave the run local. */
class ServerForwarderTest {
    @TempDir
    Path root;

    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final ByteArrayOutputStream err = new ByteArrayOutputStream();
    final StringWriter lines = new StringWriter();
    final List<Diagnostic> diagnostics = new ArrayList<>();

    RunForwarder.Forward forward(Fixture f, Map<String, String> env, Optional<String> sandbox, String... argv) {
        return new RunForwarder.Forward(List.of(argv), f.workspace, env, Map.of(), Set.of(), sandbox, Optional.empty(), out,
                err, new PrintWriter(lines, true), diagnostics::add);
    }

    @Test
    void aRunIsForwardedToTheUsersServerAndExitsWithItsStatus() throws Exception {
        try (Fixture f = new Fixture(root)) {
            Optional<Integer> status = new ServerForwarder().forward(forward(f, f.env, Optional.empty(), "sh", "-c",
                    "printf out; printf err >&2; exit 3"));
            assertThat(status).contains(3);
            assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("out");
            assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("err");
            assertThat(f.registry.get("magus.server.forwarded").tag("outcome", "started").counter().count()).isEqualTo(1.0);
        }
    }

    @Test
    void aRefusalShowsItsDiagnosticAndExits125() throws Exception {
        try (Fixture f = new Fixture(root)) {
            f.yaml("sandbox:\n  mode: best-effort\n");
            // Below the client's own floor: refused, as locally (a top-level --sandbox=off alone runs off).
            Map<String, String> env = new LinkedHashMap<>(f.env);
            env.put("MAGUS_SANDBOX", "best-effort");
            assertThat(new ServerForwarder().forward(forward(f, env, Optional.of("off"), "true"))).contains(125);
            assertThat(diagnostics).extracting(Diagnostic::code).containsExactly(Code.MGS2010);
        }
    }

    @Test
    void aDeclinedRunIsLeftToTheClientSaidOnce() throws Exception {
        try (Fixture f = new Fixture(root)) {
            f.yaml("sandbox:\n  mode: best-effort\n");
            Map<String, String> env = new LinkedHashMap<>(f.env);
            env.put("MAGUS_SANDBOX", "required");
            Path marker = root.resolve("ran");
            assertThat(new ServerForwarder().forward(forward(f, env, Optional.empty(), "touch", marker.toString()))).isEmpty();
            assertThat(marker).as("the server did not run it").doesNotExist();
            assertThat(lines.toString()).contains("running it here instead").contains("required").contains("best-effort");
        }
    }

    @Test
    void withoutAServerTheRunStaysLocal() throws Exception {
        Fixture f = new Fixture(root);
        f.close();
        assertThat(new ServerForwarder().forward(forward(f, f.env, Optional.empty(), "true"))).isEmpty();
        assertThat(lines.toString()).isEmpty();
    }
}
