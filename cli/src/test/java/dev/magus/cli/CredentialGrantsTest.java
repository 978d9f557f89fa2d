package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.orchestrator.Host;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An {@code --allow} of a credential store is granted as asked, with one warning line; {@code magus policy} marks it. */
class CredentialGrantsTest {
    @TempDir
    Path dir;
    Path ws;
    Host host;
    Path home;

    @BeforeEach
    void workspace() throws IOException {
        ws = Files.createDirectories(dir.resolve("ws")).toRealPath();
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        host = Cli.fakeHost(dir, Map.of());
        home = host.home();
        Files.createDirectories(home.resolve(".ssh"));
        Files.createDirectories(home.resolve(".config/gh"));
        Files.createDirectories(home.resolve("notes"));
    }

    @Test
    void aStoreItsParentAndAFileInsideOneWarnOnceEach() {
        List<String> lines = CredentialGrants.warnings(List.of("~/.ssh:rw", home.resolve(".config").toString(),
                home.resolve(".ssh/authorized_keys") + ":rw", "~/notes", ws.toString()), ws, home);
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).startsWith("magus: warning: --allow ~/.ssh:rw grants this run a credential store, ~/.ssh:")
                .contains("change them").doesNotContain("MGS");
        assertThat(lines.get(1)).startsWith("magus: warning: --allow " + home.resolve(".config")
                + " grants this run credential stores (~/.config/gh, ").contains(", …)").doesNotContain("change them");
        assertThat(lines.get(2)).contains("a credential store, ~/.ssh:");
        assertThat(lines).allSatisfy(l -> assertThat(l.lines()).hasSize(1));
    }

    @Test
    void relativeGrantsAreJudgedWhereTheyPoint() {
        assertThat(CredentialGrants.warnings(List.of("../home/.ssh"), ws, home)).singleElement()
                .satisfies(l -> assertThat(l).contains("--allow ../home/.ssh grants"));
        assertThat(CredentialGrants.warnings(List.of("src", "../home/notes:rw"), ws, home)).isEmpty();
    }

    @Test
    void quietSaysNothingAndTheLinesAreTheSameForBothPaths() {
        assertThat(PrintedLines.INSTANCE.granted(List.of("~/.ssh"), ws, home, true)).isEmpty();
        assertThat(PrintedLines.INSTANCE.granted(List.of("~/.ssh"), ws, home, false))
                .isEqualTo(CredentialGrants.warnings(List.of("~/.ssh"), ws, home));
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
