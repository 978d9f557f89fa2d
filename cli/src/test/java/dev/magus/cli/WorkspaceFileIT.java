package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.cli.BinMagus.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code bin/magus} as a process, in a workspace whose magus.yaml exists but is no readable
 * regular file: the run is refused with 125 and MGS2004 naming magus.yaml, the child never
 * starts, and {@code magus policy} refuses too instead of saying "no magus.yaml" with the
 * sandbox off. Before, each of these kinds made the workspace run unconfined.
 */
class WorkspaceFileIT {
    static Path magus;

    @TempDir
    Path root;

    @BeforeAll
    static void findMagus() {
        magus = BinMagus.find("bin/magus end-to-end tests");
    }

    @ParameterizedTest(name = "magus.yaml as {0}")
    @ValueSource(strings = {"a dangling link", "a directory", "a fifo", "a link to /dev/zero", "a link to itself"})
    void aWorkspaceFileThatIsNoReadableFileRefusesTheRunAndThePolicy(String kind) throws Exception {
        Path home = Files.createDirectories(root.resolve("home")).toRealPath();
        Path ws = Files.createDirectories(root.resolve("ws")).toRealPath();
        Path tmp = Files.createDirectories(root.resolve("tmp")).toRealPath();
        Path yaml = ws.resolve("magus.yaml");
        switch (kind) {
            case "a dangling link" -> Files.createSymbolicLink(yaml, Path.of("gone.yaml"));
            case "a directory" -> Files.createDirectories(yaml);
            case "a fifo" -> assertThat(new ProcessBuilder("mkfifo", yaml.toString()).start().waitFor()).isZero();
            case "a link to /dev/zero" -> Files.createSymbolicLink(yaml, Path.of("/dev/zero"));
            case "a link to itself" -> Files.createSymbolicLink(yaml, Path.of("magus.yaml"));
            default -> throw new IllegalArgumentException(kind);
        }

        Result run = magus(ws, home, tmp, "run", "--", "sh", "-c", "touch spawned");
        assertThat(run.status()).as("%s", run).isEqualTo(125);
        assertThat(run.err()).as("%s", run).startsWith("magus: MGS2004 magus.yaml: ").doesNotContain("\tat ");
        assertThat(ws.resolve("spawned")).as("the child never started").doesNotExist();

        Result policy = magus(ws, home, tmp, "policy");
        assertThat(policy.status()).as("%s", policy).isEqualTo(125);
        assertThat(policy.out()).doesNotContain("no magus.yaml").doesNotContain("mode ");
        assertThat(policy.err()).startsWith("magus: MGS2004 magus.yaml: ");
    }

    private Result magus(Path ws, Path home, Path tmp, String... args) {
        return BinMagus.run(BinMagus.command(magus, ws, BinMagus.env(home, tmp), args), 60,
                "bin/magus " + List.of(args) + " ended (a fifo must not block it)");
    }
}
