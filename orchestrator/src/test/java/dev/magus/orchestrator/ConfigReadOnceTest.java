package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.Code;
import dev.magus.events.Mode;
import dev.magus.events.SandboxException;
import dev.magus.orchestrator.pipeline.ConfigStage;
import dev.magus.orchestrator.pipeline.RunConfig;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.workspace.config.Workspace;
import dev.magus.workspace.config.WorkspaceCaches;
import dev.magus.workspace.config.ParsedConfig;
import dev.magus.workspace.config.WorkspaceConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The config stage reads magus.yaml once: the sandbox section and the projects come from one
 * read and one parse, handed on, never from a second look at the file.
 */
class ConfigReadOnceTest {
    @TempDir
    Path root;
    TestHost t;

    @BeforeEach
    void setUp() {
        t = new TestHost(root);
    }

    private RunConfig resolve(Function<Path, ParsedConfig> load) {
        return ConfigStage.resolve("t", RunRequest.builder(t.workspace, "true").build(), t.env,
                Workspace.openWith(t.workspace, t.env, t.home, load));
    }

    @Test
    void theSectionsComeFromTheOneParsedValueNotFromTheFileAgain() throws Exception {
        // On disk: no sandbox, no projects. The one parse handed on says otherwise, so anything
        // read from the file a second time would show up as off and projectless.
        t.yaml("sandbox:\n  mode: off\n");
        String handed = "sandbox:\n  mode: required\nprojects:\n  - {dir: ., spells: [go]}\n";
        List<Path> loads = new ArrayList<>();
        RunConfig c = resolve(p -> {
            loads.add(p);
            return WorkspaceConfig.parse(handed, p);
        });
        assertThat(loads).containsExactly(t.workspace.resolve("magus.yaml"));
        assertThat(c.mode()).isEqualTo(Mode.REQUIRED);
        assertThat(c.projects().all()).extracting(p -> p.dir()).containsExactly(".");
        assertThat(c.spellNames()).containsExactly("go");
    }

    @Test
    void noBehaviourChangesTheSameFileResolvesAsBeforeAndItsRefusalsStand() throws Exception {
        t.yaml("sandbox:\n  mode: required\nprojects:\n  - {dir: ., spells: [node]}\n  - {dir: api, spells: [go]}\n");
        Files.createDirectories(t.workspace.resolve("api"));
        RunConfig c = ConfigStage.resolve("t", RunRequest.builder(t.workspace.resolve("api"), "true").op("python").build(), t.env,
                t.home);
        assertThat(c.mode()).isEqualTo(Mode.REQUIRED);
        assertThat(c.project()).map(p -> p.dir()).contains("api");
        assertThat(c.spellNames()).containsExactly("go", "python");
        // The cache hands the same parsed value to the next run while the file is unchanged.
        WorkspaceCaches caches = new WorkspaceCaches();
        assertThat(Workspace.configAt(t.workspace, caches)).isSameAs(Workspace.configAt(t.workspace, caches));

        // A projects section that cannot be honoured is refused from the one parse, naming where.
        t.yaml("sandbox:\n  mode: required\nprojects:\n  - {dir: ., spells: [cobol]}\n");
        assertThatThrownBy(() -> ConfigStage.resolve("t", RunRequest.builder(t.workspace, "true").build(), t.env, t.home))
                .isInstanceOfSatisfying(SandboxException.class, e -> {
                    assertThat(e.code()).isEqualTo(Code.MGS2004);
                    assertThat(e.diagnostic().source()).isEqualTo("magus.yaml:4:23 projects[0].spells[0]");
                });
        // Malformed YAML is refused once, by the sandbox section's reader, as before.
        t.yaml("sandbox: [\n");
        assertThatThrownBy(() -> ConfigStage.resolve("t", RunRequest.builder(t.workspace, "true").build(), t.env, t.home))
                .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.diagnostic().message()).contains("malformed YAML"));
        // An empty file: off, no projects.
        t.yaml("# nothing yet\n");
        RunConfig empty = ConfigStage.resolve("t", RunRequest.builder(t.workspace, "true").build(), t.env, t.home);
        assertThat(empty.mode()).isEqualTo(Mode.OFF);
        assertThat(empty.projects().all()).isEmpty();
    }
}
