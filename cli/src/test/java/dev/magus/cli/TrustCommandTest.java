package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.orchestrator.run.Host;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrustCommandTest {
    @TempDir
    Path dir;
    Path ws;
    Host host;

    @BeforeEach
    void workspace() throws IOException {
        ws = Files.createDirectories(dir.resolve("ws")).toRealPath();
        host = Cli.fakeHost(dir, Map.of());
        Files.createDirectories(host.home().resolve(".ssh"));
    }

    private Cli.Result run(String... args) {
        return Cli.run(Cli.context(host, ws, LandlockProbe.fixed(7)), args);
    }

    @Test
    void aClonedFileAsksForTrustThenTrustNamesWhatItAllowsAndAChangeAsksAgain() throws IOException {
        Path yaml = Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\n  allow:\n"
                + "    - {path: ~/.ssh, mode: ro}\n  env:\n    passthrough: [GITHUB_TOKEN]\n");
        Cli.Result policy = run("policy");
        assertThat(policy.out()).contains("~/.ssh", "needs 'magus trust'", "GITHUB_TOKEN");
        assertThat(run("trust", "--check").status()).isEqualTo(TrustCommand.NOT_TRUSTED);

        Cli.Result trusted = run("trust");
        assertThat(trusted.status()).as(trusted.err()).isZero();
        assertThat(trusted.err()).contains("trusted", "~/.ssh", "GITHUB_TOKEN");
        assertThat(run("trust", "--check").status()).isZero();
        assertThat(run("policy").out()).doesNotContain("needs 'magus trust'").contains("~/.ssh");

        Files.writeString(yaml, "# edited\n", StandardOpenOption.APPEND);
        assertThat(run("trust", "--check").status()).isEqualTo(TrustCommand.NOT_TRUSTED);
    }

    @Test
    void initsOwnFileIsTrusted() {
        Cli.Result init = run("init");
        assertThat(init.status()).as(init.err()).isZero();
        assertThat(run("trust", "--check").status()).isZero();
    }

    @Test
    void withoutAFileThereIsNothingToTrust() {
        Cli.Result r = run("trust");
        assertThat(r.status()).isEqualTo(TrustCommand.NOT_TRUSTED);
        assertThat(r.err()).contains("no magus.yaml");
    }
}
