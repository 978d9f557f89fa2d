package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.abi.LandlockProbe;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One server, many runs of one workspace: the server keeps what it read of
 * magus.yaml between runs, and every change of the file reaches the very next forwarded run:
 * a rewrite of the same size with its mtime put back, a replacement by rename, and a file that
 * no longer parses, which is refused (MGS2004), never run under the policy read before.
 */
class ConfigChangesAcrossRunsTest {
    @TempDir
    Path root;
    Fixture f;
    Path out;

    @BeforeEach
    void start() throws Exception {
        int abi = LandlockProbe.kernel().abi();
        String why = "config-change test skipped: Landlock ABI " + abi + " here, required mode needs 3";
        if (abi < 3) {
            System.err.println(why);
        }
        Assumptions.assumeTrue(abi >= 3, why);
        f = new Fixture(root);
        out = Files.createDirectories(f.home.resolve("out"));
    }

    @AfterEach
    void stop() {
        if (f != null) {
            f.close();
        }
    }

    private static String yaml(String mode) {
        return "sandbox:\n  mode: required\n  allow:\n    - {path: ~/out, mode: " + mode + "}\n";
    }

    /** Whether a forwarded run could write in ~/out; each run a new file. */
    private boolean writes(String name) throws Exception {
        Path file = out.resolve(name);
        Fixture.Result r = f.forward(f.run("sh", "-c", "echo made > " + file));
        assertThat(r.outcome()).isInstanceOf(Forwarding.Outcome.Exited.class);
        return r.status() == 0 && Files.exists(file);
    }

    @Test
    void aSameSizeRewriteWithItsMtimePutBackReachesTheNextRun() throws Exception {
        Path yaml = f.workspace.resolve("magus.yaml");
        f.yaml(yaml("ro"));
        assertThat(writes("a1")).isFalse();
        assertThat(writes("a2")).isFalse();
        FileTime mtime = Files.getLastModifiedTime(yaml);
        long size = Files.size(yaml);
        f.yaml(yaml("rw"));
        Files.setLastModifiedTime(yaml, mtime);
        assertThat(Files.size(yaml)).isEqualTo(size);
        assertThat(writes("a3")).isTrue();
        // And back: a narrower file is the next run's at once.
        f.yaml(yaml("ro"));
        Files.setLastModifiedTime(yaml, mtime);
        assertThat(writes("a4")).isFalse();
    }

    @Test
    void aFileReplacedByRenameReachesTheNextRun() throws Exception {
        Path yaml = f.workspace.resolve("magus.yaml");
        f.yaml(yaml("rw"));
        assertThat(writes("b1")).isTrue();
        Path tmp = Files.writeString(f.workspace.resolve("magus.yaml.new"), yaml("ro"));
        Files.move(tmp, yaml, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        assertThat(writes("b2")).isFalse();
    }

    @Test
    void aFileThatNoLongerParsesIsRefusedNeverRunUnderTheEarlierPolicy() throws Exception {
        Path yaml = f.workspace.resolve("magus.yaml");
        f.yaml(yaml("rw"));
        assertThat(writes("c1")).isTrue();
        f.yaml(yaml("rw") + "  bogus: [\n");
        for (String name : List.of("c2", "c3")) {
            Path file = out.resolve(name);
            Fixture.Result r = f.forward(f.run("sh", "-c", "echo made > " + file));
            assertThat(r.codes()).contains("MGS2004");
            assertThat(r.status()).isNotZero();
            assertThat(file).doesNotExist();
        }
        f.yaml(yaml("ro"));
        assertThat(writes("c4")).isFalse();
    }
}
