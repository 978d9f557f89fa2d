package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.orchestrator.run.Host;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code magus target} with no name lists the workspace's targets; nothing runs. */
class TargetListTest {
    @TempDir
    Path dir;
    Path ws;
    Host host;

    @BeforeEach
    void workspace() throws IOException {
        ws = Files.createDirectories(dir.resolve("ws")).toRealPath();
        Files.createDirectories(ws.resolve("api"));
        host = Cli.fakeHost(dir, Map.of());
    }

    private Cli.Result run(String... args) {
        return Cli.run(Cli.context(host, ws, LandlockProbe.fixed(7)), args);
    }

    @Test
    void eachTargetOneLineWithItsCommand() throws IOException {
        Files.writeString(ws.resolve("magus.yaml"), """
                sandbox:
                  mode: required
                projects:
                  - dir: api
                    spells: [go]
                    targets:
                      test:
                        run: [go, test, ./...]
                      gen:
                        run: [go, generate]
                        writes: true
                """);
        Cli.trust(host, ws.resolve("magus.yaml"));
        Cli.Result r = run("target");
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out().lines().toList()).as(r.out() + "|" + r.err()).containsExactly("api/test: go test ./...", "api/gen: go generate  (writes)");
    }

    @Test
    void noTargetsSaysWhereTheyAreDeclared() throws IOException {
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        Cli.Result r = run("target");
        assertThat(r.status()).isZero();
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).contains("declares no targets");
    }

    @Test
    void aMalformedFileIsItsDiagnostic() throws IOException {
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: mostly\n");
        Cli.Result r = run("target");
        assertThat(r.status()).as(r.out() + "|" + r.err()).isEqualTo(ExitCodes.REFUSED);
        assertThat(r.err()).contains("MGS2004");
    }
}
