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

/**
 * {@code --allow} and {@code --pass} on the command line: {@code magus policy} shows them as layer cli; bad values are 125;
 * one that reaches a credential store is granted as asked, with one warning line, and {@code magus policy} marks it.
 */
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
        Files.createDirectories(host.home().resolve(".ssh"));
        Files.createDirectories(host.home().resolve(".config/gh"));
        Files.createDirectories(host.home().resolve("notes"));
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

    @Test
    void aStoreItsParentAndAFileInsideOneWarnOnceEach() {
        List<String> lines = CredentialGrants.warnings(List.of("~/.ssh:rw", host.home().resolve(".config").toString(),
                host.home().resolve(".ssh/authorized_keys") + ":rw", "~/notes", ws.toString()), ws, host.home());
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).startsWith("magus: warning: --allow ~/.ssh:rw grants this run a credential store, ~/.ssh:")
                .contains("change them").doesNotContain("MGS");
        assertThat(lines.get(1)).startsWith("magus: warning: --allow " + host.home().resolve(".config")
                + " grants this run credential stores (~/.config/gh, ").contains(", …)").doesNotContain("change them");
        assertThat(lines.get(2)).contains("a credential store, ~/.ssh:");
        assertThat(lines).allSatisfy(l -> assertThat(l.lines()).hasSize(1));
    }

    @Test
    void relativeGrantsAreJudgedWhereTheyPoint() {
        assertThat(CredentialGrants.warnings(List.of("../home/.ssh"), ws, host.home())).singleElement()
                .satisfies(l -> assertThat(l).contains("--allow ../home/.ssh grants"));
        assertThat(CredentialGrants.warnings(List.of("src", "../home/notes:rw"), ws, host.home())).isEmpty();
    }

    @Test
    void quietSaysNothingAndTheLinesAreTheSameForBothPaths() {
        assertThat(PrintedLines.INSTANCE.granted(List.of("~/.ssh"), ws, host.home(), true)).isEmpty();
        assertThat(PrintedLines.INSTANCE.granted(List.of("~/.ssh"), ws, host.home(), false))
                .isEqualTo(CredentialGrants.warnings(List.of("~/.ssh"), ws, host.home()));
    }

    @Test
    void policyMarksTheGrant() throws IOException {
        Cli.Result text = Cli.run(Cli.context(host, ws, LandlockProbe.fixed(7)), "policy", "--allow", "~/.ssh:rw",
                "--allow", "~/notes");
        assertThat(text.status()).as(text.err()).isZero();
        assertThat(text.out()).containsPattern("~/\\.ssh\\s+rw-\\s+cli  ! credential store: ~/\\.ssh")
                .containsPattern("~/notes\\s+r--\\s+cli\n");
        Cli.Result json = Cli.run(Cli.context(host, ws, LandlockProbe.fixed(7)), "policy", "--json", "--allow", "~/.ssh");
        JsonNode rules = new ObjectMapper().readTree(json.out()).get("rules");
        boolean marked = false;
        for (JsonNode r : rules) {
            if (r.get("origin").asText().equals("cli")) {
                assertThat(r.get("credential_stores").toString()).isEqualTo("[\"~/.ssh\"]");
                marked = true;
            } else {
                assertThat(r.has("credential_stores")).as(r.toString()).isFalse();
            }
        }
        assertThat(marked).isTrue();
    }
}
