package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.orchestrator.run.Host;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code magus init}: the file it writes is the workspace's from then on, and it never overwrites one. */
class InitCommandTest {
    @TempDir
    Path dir;
    Path ws;
    Host host;

    @BeforeEach
    void tree() throws IOException {
        ws = Files.createDirectories(dir.resolve("ws")).toRealPath();
        Files.writeString(ws.resolve("package.json"), "{}\n");
        Files.createDirectories(ws.resolve("api"));
        Files.writeString(ws.resolve("api/go.mod"), "module example.org/api\n");
        host = Cli.fakeHost(dir, Map.of());
    }

    private Cli.Result run(String... args) {
        return Cli.run(Cli.context(host, ws, LandlockProbe.fixed(7)), args);
    }

    @Test
    void writesTheProjectsAndTheirSpellsAndMagusUsesIt() throws IOException {
        Cli.Result r = run("init");
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.err()).contains("wrote", "2 projects: . (node), api (go)");
        String yaml = Files.readString(ws.resolve("magus.yaml"));
        assertThat(yaml).contains("  mode: best-effort", "  - dir: .", "    spells: [node]", "  - dir: api",
                "    spells: [go]", "# found go.mod");

        Cli.Result policy = run("policy");
        assertThat(policy.status()).as(policy.err()).isZero();
        assertThat(policy.out()).contains("best-effort (sandbox.mode in magus.yaml)");
    }

    @Test
    void modeChoosesTheFilesModeAndAnUnknownOneWritesNothing() throws IOException {
        Cli.Result bad = run("init", "--mode", "strict");
        assertThat(bad.status()).isEqualTo(ExitCodes.REFUSED);
        assertThat(bad.err()).contains("MGS2004", "strict", "--mode");
        assertThat(ws.resolve("magus.yaml")).doesNotExist();

        Cli.Result r = run("init", "--mode", "required");
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.err()).contains("mode required");
        assertThat(Files.readString(ws.resolve("magus.yaml"))).contains("  mode: required ");
        Cli.Result policy = run("policy");
        assertThat(policy.out()).contains("required (sandbox.mode in magus.yaml)");
    }

    @Test
    void neverOverwrites() throws IOException {
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        Cli.Result r = run("init");
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.err()).contains("already exists", "never overwrites");
        assertThat(Files.readString(ws.resolve("magus.yaml"))).isEqualTo("sandbox:\n  mode: required\n");
    }

    @Test
    void aDanglingLinkNamedMagusYamlIsNotWrittenThrough() throws IOException {
        Files.createSymbolicLink(ws.resolve("magus.yaml"), dir.resolve("elsewhere.yaml"));
        Cli.Result r = run("init");
        assertThat(r.status()).isEqualTo(1);
        assertThat(dir.resolve("elsewhere.yaml")).doesNotExist();
        assertThat(Files.isSymbolicLink(ws.resolve("magus.yaml"))).isTrue();
    }

    @Test
    void dryRunPrintsAndWritesNothing() {
        Cli.Result r = run("init", "--dry-run");
        assertThat(r.status()).isZero();
        assertThat(r.out()).startsWith("# magus.yaml, written by `magus init`").contains("spells: [go]");
        assertThat(Files.exists(ws.resolve("magus.yaml"), LinkOption.NOFOLLOW_LINKS)).isFalse();
    }
}
