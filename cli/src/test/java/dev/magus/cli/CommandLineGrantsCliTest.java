package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.orchestrator.Host;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --allow} and {@code --pass} on the command line: {@code magus policy} shows them as layer cli; bad values are 125. */
class CommandLineGrantsCliTest {
    @TempDir
    Path dir;
    Path ws;
    Host host;

    @BeforeEach
    void workspace() throws IOException {
        ws = Files.createDirectories(dir.resolve("ws")).toRealPath();
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        host = Cli.fakeHost(dir, Map.of());
        Files.createDirectories(ws.resolve("data"));
    }

    private Cli.Result run(String... args) {
        return Cli.run(Cli.context(host, ws, LandlockProbe.fixed(7)), args);
    }

    @Test
    void policyShowsTheGrantsAsLayerCli() throws IOException {
        Cli.Result r = run("policy", "--json", "--allow", "data:rw", "--pass", "FOO");
        assertThat(r.status()).as(r.err()).isZero();
        JsonNode json = new ObjectMapper().readTree(r.out());
        List<String> cli = new ArrayList<>();
        json.get("rules").forEach(rule -> {
            if (rule.get("origin").asText().equals("cli")) {
                cli.add(rule.get("path").asText() + " " + rule.get("bits").asText());
            }
        });
        assertThat(cli).containsExactly(ws.resolve("data") + " rw-");
        assertThat(json.get("env").get("passthrough").toString()).contains("\"FOO\"");

        Cli.Result text = run("policy", "--allow", "data:rw");
        assertThat(text.out()).containsPattern(ws.resolve("data") + "\\s+rw-\\s+cli");
        assertThat(run("policy").out()).doesNotContain(" cli");
    }

    @Test
    void badValuesAreMgs2004NamingTheFlagAndExit125() {
        Cli.Result r = run("run", "--local", "--allow", "data:bogus", "--", "true");
        assertThat(r.status()).isEqualTo(125);
        assertThat(r.err()).contains("MGS2004 --allow: unknown access mode 'bogus'");
        Cli.Result p = run("run", "--local", "--pass", "A-B", "--", "true");
        assertThat(p.status()).isEqualTo(125);
        assertThat(p.err()).contains("MGS2004 --pass: malformed passthrough pattern 'A-B'");
        Cli.Result policy = run("policy", "--allow", ":rw");
        assertThat(policy.status()).isEqualTo(125);
        assertThat(policy.err()).contains("MGS2004 --allow:");
    }
}
