package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.orchestrator.run.Host;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code magus policy [--op SPELL] [--target NAME]}: which spells, and each rule named by its layer. */
class SpellsPolicyTest {
    @TempDir
    Path dir;
    Path ws;
    Host host;

    @BeforeEach
    void workspace() throws IOException {
        ws = Files.createDirectories(dir.resolve("ws")).toRealPath();
        Files.createDirectories(ws.resolve("api"));
        host = Cli.fakeHost(dir, Map.of());
        Files.createDirectories(host.home().resolve(".npm"));
        Files.createDirectories(host.home().resolve(".cache/go-build"));
        Files.createDirectories(host.home().resolve("fixtures"));
        Files.writeString(ws.resolve("magus.yaml"), """
                sandbox:
                  mode: required
                projects:
                  - dir: .
                    spells: [node]
                  - dir: api
                    spells: [go]
                    targets:
                      test:
                        run: [go, test, ./...]
                        sandbox:
                          allow: [{name: fixtures, path: ~/fixtures, mode: rw}]
                """);
        Cli.trust(host, ws.resolve("magus.yaml"));
    }

    private Cli.Result run(String... args) {
        return Cli.run(Cli.context(host, ws, LandlockProbe.fixed(7)), args);
    }

    private static List<String> origins(String json) throws IOException {
        List<String> out = new ArrayList<>();
        for (JsonNode r : new ObjectMapper().readTree(json).get("rules")) {
            out.add(r.get("origin").asText());
        }
        return out;
    }

    @Test
    void everyRuleNamesItsLayer() throws IOException {
        Cli.Result text = run("policy");
        assertThat(text.status()).as("%s", text.err()).isZero();
        assertThat(text.out()).contains("spells        node, go (every spell the workspace's projects bind)")
                .containsPattern("~/\\.npm +rw- +spell:node/npm-cache")
                .containsPattern("~/\\.cache/go-build +rwx +spell:go/gocache")
                .containsPattern("spell:go/gomodcache +skipped: .*go/pkg/mod does not exist on this host; the first sandboxed run creates it")
                .doesNotContain("target:").doesNotContain("spell:rust");
        assertThat(origins(run("policy", "--json").out())).contains("spell:node/npm-cache", "spell:go/gocache");

        Cli.Result op = run("policy", "--op", "node", "--json");
        assertThat(origins(op.out())).contains("spell:node/npm-cache").noneMatch(o -> o.startsWith("spell:go"));
        assertThat(new ObjectMapper().readTree(op.out()).get("spells").toString()).isEqualTo("[\"node\"]");

        Cli.Result target = run("policy", "--target", "api/test");
        assertThat(target.out()).contains("target        api/test in api: go test ./...")
                .containsPattern("~/fixtures +rw- +target:api/test/fixtures");
        JsonNode json = new ObjectMapper().readTree(run("policy", "--target", "test", "--json").out());
        assertThat(json.get("target").asText()).isEqualTo("api/test");
        assertThat(json.get("target_writes").asBoolean()).isFalse();
    }

    @Test
    void anUnknownSpellOrTargetIsRefusedNamingTheFlag() {
        Cli.Result op = run("policy", "--op", "cobol");
        assertThat(op.status()).isEqualTo(125);
        assertThat(op.err()).startsWith("magus: MGS2004 --op: --op names no spell: 'cobol'");
        Cli.Result target = run("run", "--target", "deploy");
        assertThat(target.status()).isEqualTo(125);
        assertThat(target.err()).startsWith("magus: MGS2004 --target: no target is named 'deploy' (declared: api/test)");
        // Without a name, magus target lists the targets instead of running one.
        Cli.Result none = run("target");
        assertThat(none.status()).as(none.err()).isZero();
        assertThat(none.out()).isEqualTo("api/test: go test ./...\n");
    }
}
