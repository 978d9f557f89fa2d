package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.RunEvent;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.RunResult;
import dev.magus.workspace.trust.TrustStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cloned repository's magus.yaml that grants {@code ~/.ssh}, passes {@code GITHUB_TOKEN} and
 * names the metadata address is not honoured until the user trusts it: each such line is
 * MGS2016 and the rest runs; trusting pins the file, and a change needs trust again. Real
 * confined children, a fake home.
 */
class TrustInRunsTest {
    static final String CLONED = """
            sandbox:
              mode: required
              allow:
                - {path: ~/.ssh, mode: ro}
                - {path: build-cache, base: workspace, mode: rw}
              env:
                passthrough: [GITHUB_TOKEN, CI]
              network:
                allow: ["169.254.169.254", "registry.npmjs.org"]
            """;

    @TempDir
    Path root;
    TestHost t;

    @BeforeEach
    void setUp() throws IOException {
        TestHost.assumeLandlock();
        t = new TestHost(root).untrustedYaml(CLONED);
        Files.createDirectories(t.home.resolve(".ssh"));
        Files.writeString(t.home.resolve(".ssh/id_rsa"), "FAKE-PRIVATE-KEY\n");
        Files.createDirectories(t.workspace.resolve("build-cache"));
        t.env.put("GITHUB_TOKEN", "FAKE-GITHUB-TOKEN");
        t.env.put("CI", "true");
    }

    private record Outcome(RunResult result, List<RunEvent> events) {
        String text() {
            return TestHost.text(events);
        }

        List<Diagnostic> untrusted() {
            return events.stream().filter(e -> e instanceof RunEvent.Diag).map(e -> ((RunEvent.Diag) e).diagnostic())
                    .filter(d -> d.code() == Code.MGS2016).toList();
        }
    }

    private Outcome run() {
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c",
                "cat ~/.ssh/id_rsa; echo \"token=$GITHUB_TOKEN ci=$CI\"; echo ok > build-cache/x && cat build-cache/x").build());
        List<RunEvent> events = TestHost.events(run);
        return new Outcome(run.result().block(TestHost.DEADLINE), events);
    }

    @Test
    void anUntrustedFilesOutsideGrantsSecretsAndLocalHostsAreLeftOutAndNamedTheRestRuns() {
        Outcome o = run();
        assertThat(o.text()).doesNotContain("FAKE-PRIVATE-KEY", "FAKE-GITHUB-TOKEN").contains("ci=true", "ok");
        assertThat(o.untrusted()).extracting(Diagnostic::subject).containsExactlyInAnyOrder("~/.ssh", "GITHUB_TOKEN",
                "169.254.169.254");
        assertThat(o.untrusted()).allSatisfy(d -> assertThat(d.message()).contains("magus trust", "magus.yaml"));
        assertThat(o.untrusted()).filteredOn(d -> d.subject().equals("~/.ssh"))
                .allSatisfy(d -> assertThat(d.source()).contains("magus.yaml:4", "sandbox.allow[0]"));
    }

    @Test
    void trustHonoursTheFileAsItIsAndAChangeAsksAgain() throws IOException {
        TrustStore store = TrustStore.of(t.env, t.home);
        Path file = t.workspace.resolve("magus.yaml");
        store.trust(file);
        Outcome trusted = run();
        assertThat(trusted.untrusted()).isEmpty();
        assertThat(trusted.text()).contains("FAKE-PRIVATE-KEY", "token=FAKE-GITHUB-TOKEN");

        Files.writeString(file, "# one more line\n", StandardOpenOption.APPEND);
        Outcome changed = run();
        assertThat(changed.text()).doesNotContain("FAKE-PRIVATE-KEY", "FAKE-GITHUB-TOKEN");
        assertThat(changed.untrusted()).hasSize(3);
    }

    @Test
    void aSpellTheRepositoryShipsIsJudgedLikeItsFile() throws IOException {
        Files.createDirectories(t.workspace.resolve(".magus/spells"));
        Files.writeString(t.workspace.resolve(".magus/spells/helper.yaml"),
                "sandbox:\n  allow:\n    - {path: ~/.ssh, mode: ro}\n");
        t.untrustedYaml("sandbox:\n  mode: required\nprojects:\n  - dir: .\n    spells: [helper]\n");
        Outcome o = run();
        assertThat(o.text()).doesNotContain("FAKE-PRIVATE-KEY");
        assertThat(o.untrusted()).extracting(Diagnostic::subject).containsExactly("~/.ssh");

        TrustStore.of(t.env, t.home).trust(t.workspace.resolve("magus.yaml"));
        assertThat(run().text()).contains("FAKE-PRIVATE-KEY");
        Files.writeString(t.workspace.resolve(".magus/spells/helper.yaml"), "# changed\n", StandardOpenOption.APPEND);
        assertThat(run().text()).as("a changed spell needs trust again").doesNotContain("FAKE-PRIVATE-KEY");
    }

    @Test
    void aFileThatDeclaresNothingOutsideNeverAsks() {
        t.untrustedYaml("sandbox:\n  mode: required\n  allow:\n    - {path: build-cache, base: workspace, mode: rw}\n");
        Outcome o = run();
        assertThat(o.untrusted()).isEmpty();
        assertThat(o.text()).contains("ok");
    }
}
