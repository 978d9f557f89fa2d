package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.cli.BinMagus.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The built modules started on the module path ({@code java -p cli.jar:lib -m dev.magus.cli/...})
 * instead of bin/magus's class path: proves the module descriptors are whole, that picocli may
 * set the commands' fields (opens to info.picocli), JNA may reach landlock's structures, and the
 * job store's SQLite and magus.yaml's snakeyaml load as modules.
 */
class ModulePathIT {
    static Path magus;
    static Path target;

    @TempDir
    Path root;

    @BeforeAll
    static void find() {
        magus = BinMagus.find("module path tests");
        target = magus.getParent().getParent().resolve("cli/target");
    }

    Result modular(Path ws, String... args) throws IOException {
        Path home = Files.createDirectories(root.resolve("home"));
        Path tmp = Files.createDirectories(root.resolve("tmp"));
        Map<String, String> env = BinMagus.env(home, tmp);
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.io.tmpdir=" + tmp, "-p", target.resolve("cli.jar") + ":" + target.resolve("lib"),
                "-m", "dev.magus.cli/dev.magus.cli.Main"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = BinMagus.command(magus, ws, env);
        pb.command(cmd);
        return BinMagus.run(pb, 120, "magus on the module path " + List.of(args) + " ended");
    }

    @Test
    void versionAndAConfinedRunWorkAsModules() throws IOException {
        Path ws = Files.createDirectories(root.resolve("ws"));
        Result version = modular(ws, "--version");
        assertThat(version.status()).as("%s", version).isZero();
        assertThat(version.out()).startsWith("magus-sandbox ");

        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        Result run = modular(ws, "run", "--", "sh", "-c", "cat magus.yaml >/dev/null; printf ran; exit 3");
        assertThat(run.status()).as("%s", run).isEqualTo(3);
        assertThat(run.out()).isEqualTo("ran");

        Result jobs = modular(ws, "job", "list");
        assertThat(jobs.status()).as("%s", jobs).isZero();
    }
}
