package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.RunEvent;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.RunResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A confined run cannot widen the next one through the locations magus reads from the
 * workspace: the first run plants a {@code .git} link or file, or replaces
 * a declared directory by a link, as a compromised package would; the second run, confined by
 * the kernel under a policy built afterwards, still cannot read the (fake) home's private key
 * or write into {@code /etc}.
 *
 * <p>A planted {@code .git} is a control file: the audit reports it (MGS2002, layer audit),
 * fails that run and by default removes it again. These tests are about what the next policy
 * makes of a plant that stays, so their workspace says {@code controlFiles: report}.
 */
class PlantedLocationsTest {
    @TempDir
    Path root;
    TestHost t;
    String secret;

    @BeforeEach
    void setUp() throws IOException {
        TestHost.assumeLandlock();
        t = new TestHost(root).yaml("sandbox:\n  mode: required\n  controlFiles: report\n");
        secret = "FAKE-PRIVATE-KEY-" + UUID.randomUUID();
        Files.createDirectories(t.home.resolve(".ssh"));
        Files.writeString(t.home.resolve(".ssh/id_rsa"), secret + "\n");
    }

    private record Outcome(int status, String text) {
    }

    private Outcome run(String... command) {
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, command).build());
        List<RunEvent> events = TestHost.events(run);
        RunResult result = run.result().block(TestHost.DEADLINE);
        return new Outcome(result.status(), TestHost.text(events));
    }

    /** The second run: the key stays unread and nothing is created in home or /etc. */
    private void nextRunIsStillConfined(Path... alsoUnreadable) throws IOException {
        Outcome read = run("cat", t.home.resolve(".ssh/id_rsa").toString());
        assertThat(read.status()).as(read.text()).isNotZero();
        assertThat(read.text()).doesNotContain(secret).contains("MGS2001");
        for (Path p : alsoUnreadable) {
            Outcome other = run("cat", p.toString());
            assertThat(other.status()).as(other.text()).isNotZero();
            assertThat(other.text()).doesNotContain(secret);
        }
        Path inHome = t.home.resolve("planted-" + UUID.randomUUID());
        Path inEtc = Path.of("/etc", "magus-issue12-" + UUID.randomUUID());
        try {
            Outcome write = run("touch", inHome.toString(), inEtc.toString());
            assertThat(write.status()).as(write.text()).isNotZero();
            assertThat(inHome).doesNotExist();
            assertThat(inEtc).doesNotExist();
        } finally {
            Files.deleteIfExists(inEtc);
        }
    }

    @Test
    void aDotGitLinkToHomePlantedByOneRunGrantsTheNextNothing() throws IOException {
        Outcome plant = run("ln", "-s", "../home", ".git");
        assertThat(plant.status()).as("the audit fails the planting run; " + plant.text()).isEqualTo(1);
        assertThat(plant.text()).contains("MGS2002 write to a control file: .git was created");
        assertThat(Files.isSymbolicLink(t.workspace.resolve(".git"))).isTrue();
        nextRunIsStillConfined(t.workspace.resolve(".git/.ssh/id_rsa"));
    }

    @Test
    void aGitdirLineNamingRootPlantedByOneRunGrantsTheNextNothing() throws IOException {
        Outcome plant = run("sh", "-c", "echo 'gitdir: /' > .git");
        assertThat(plant.status()).as("the audit fails the planting run; " + plant.text()).isEqualTo(1);
        assertThat(plant.text()).contains("MGS2002 write to a control file: .git was created");
        assertThat(t.workspace.resolve(".git")).hasContent("gitdir: /");
        nextRunIsStillConfined();
    }

    @Test
    void aGitdirLineNamingHomeMadeToLookLikeARepositoryGrantsTheNextNothing() throws IOException {
        // A child cannot write HEAD into home; a home that already holds a dotfiles repository has one.
        Files.createDirectories(t.home.resolve("objects"));
        Files.createDirectories(t.home.resolve("refs"));
        Files.writeString(t.home.resolve("HEAD"), "ref: refs/heads/main\n");
        Outcome plant = run("sh", "-c", "echo \"gitdir: $HOME\" > .git");
        assertThat(plant.status()).as("the audit fails the planting run; " + plant.text()).isEqualTo(1);
        assertThat(plant.text()).contains("MGS2002 write to a control file: .git was created");
        nextRunIsStillConfined();
    }

    @Test
    void aDeclaredWorkspaceDirectoryReplacedByALinkGrantsTheNextNothing() throws IOException {
        t.yaml("""
                sandbox:
                  mode: required
                  allow:
                    - {base: workspace, path: out, mode: rw}
                    - {path: %s, mode: rw}
                """.formatted(t.workspace.resolve("gen")));
        Files.createDirectories(t.workspace.resolve("out"));
        Files.createDirectories(t.workspace.resolve("gen"));
        Outcome plant = run("sh", "-c", "rm -rf out gen && ln -s ../home/.ssh out && ln -s /etc gen");
        assertThat(plant.status()).as(plant.text()).isZero();
        assertThat(Files.isSymbolicLink(t.workspace.resolve("out"))).isTrue();
        nextRunIsStillConfined(t.workspace.resolve("out/id_rsa"));
        Path viaGen = t.workspace.resolve("gen/magus-issue12-" + UUID.randomUUID());
        try {
            Outcome write = run("touch", viaGen.toString());
            assertThat(write.status()).as(write.text()).isNotZero();
            assertThat(viaGen).doesNotExist();
        } finally {
            Files.deleteIfExists(viaGen);
        }
    }
}
