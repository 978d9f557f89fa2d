package dev.magus.workspace.init;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Mode;
import dev.magus.workspace.config.WorkspaceConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/** {@code magus init}'s detection and file: markers to spells, where it looks, and a file that parses. */
class InitDetectionTest {
    /** A tree of values: directory -> its entries. */
    static ProjectDetector.Lister tree(Map<String, List<String>> dirs) {
        return dir -> {
            List<ProjectDetector.Entry> out = new ArrayList<>();
            for (String name : dirs.getOrDefault(dir.toString(), List.of())) {
                boolean directory = name.endsWith("/");
                out.add(new ProjectDetector.Entry(directory ? name.substring(0, name.length() - 1) : name, directory));
            }
            return out;
        };
    }

    @Test
    void everyMarkerNamesItsSpell() {
        Map<String, String> expected = new TreeMap<>(Map.ofEntries(Map.entry("package.json", "node"),
                Map.entry("pom.xml", "java"), Map.entry("build.gradle", "java"), Map.entry("build.gradle.kts", "java"),
                Map.entry("Cargo.toml", "rust"), Map.entry("go.mod", "go"), Map.entry("pyproject.toml", "python"),
                Map.entry("requirements.txt", "python"), Map.entry("requirements-dev.txt", "python"),
                Map.entry(".tool-versions", "asdf"), Map.entry("mise.toml", "mise"), Map.entry(".mise.toml", "mise"),
                Map.entry(".nvmrc", "nvm"), Map.entry(".sdkmanrc", "sdkman")));
        expected.forEach((file, spell) -> assertThat(Markers.spell(file)).as(file).contains(spell));
        for (String none : List.of("README.md", "package-lock.json", "go.sum", "requirements.in", "Makefile")) {
            assertThat(Markers.spell(none)).as(none).isEmpty();
        }
    }

    @Test
    void projectsAreTheRootAndEveryDirectoryWithAMarkerSkippingGeneratedOnes() {
        Map<String, List<String>> dirs = Map.of(
                "/w", List.of("package.json", ".nvmrc", "api/", "web/", "node_modules/", ".git/", "docs/", "target/"),
                "/w/api", List.of("go.mod", "cmd/"),
                "/w/api/cmd", List.of("main.go"),
                "/w/web", List.of("package.json", "pyproject.toml"),
                "/w/node_modules", List.of("left-pad/"),
                "/w/node_modules/left-pad", List.of("package.json"),
                "/w/.git", List.of("package.json"),
                "/w/target", List.of("pom.xml"),
                "/w/docs", List.of("index.md"));
        List<ProjectDetector.Project> found = ProjectDetector.detect(Path.of("/w"), tree(dirs));
        assertThat(found).extracting(ProjectDetector.Project::dir).containsExactly(".", "api", "web");
        assertThat(found.get(0).spells()).containsExactly("node", "nvm");
        assertThat(found.get(1).spells()).containsExactly("go");
        assertThat(found.get(2).spells()).containsExactly("node", "python");
    }

    @Test
    void theDepthIsBounded() {
        Map<String, List<String>> dirs = Map.of("/w", List.of("a/"), "/w/a", List.of("b/"), "/w/a/b", List.of("c/"),
                "/w/a/b/c", List.of("d/", "go.mod"), "/w/a/b/c/d", List.of("e/", "Cargo.toml"),
                "/w/a/b/c/d/e", List.of("pom.xml"));
        assertThat(ProjectDetector.detect(Path.of("/w"), tree(dirs))).extracting(ProjectDetector.Project::dir)
                .containsExactly(".", "a/b/c", "a/b/c/d");
    }

    @Test
    void aRootWithoutMarkersIsStillAProjectWithNoSpells() {
        List<ProjectDetector.Project> found = ProjectDetector.detect(Path.of("/w"), tree(Map.of("/w", List.of("x.c"))));
        assertThat(found).hasSize(1);
        assertThat(found.get(0).spells()).isEmpty();
        assertThat(InitFile.render(found, Mode.BEST_EFFORT)).contains("  - dir: .", "spells: []", "no marker file found");
    }

    @Test
    void theFileParsesAsMagusYamlAndHasTheShapeOfTheDesign(@TempDir Path tmp) throws IOException {
        Files.writeString(tmp.resolve("package.json"), "{}");
        Files.createDirectories(tmp.resolve("api"));
        Files.writeString(tmp.resolve("api/go.mod"), "module x\n");
        Files.createDirectories(tmp.resolve("odd dir"));
        Files.writeString(tmp.resolve("odd dir/Cargo.toml"), "");
        Files.createDirectories(tmp.resolve("node_modules/x"));
        Files.writeString(tmp.resolve("node_modules/x/package.json"), "{}");
        Files.createSymbolicLink(tmp.resolve("loop"), tmp);
        String yaml = InitFile.render(ProjectDetector.detect(tmp), Mode.BEST_EFFORT);

        WorkspaceConfig config = WorkspaceConfig.read(yaml, tmp.resolve("magus.yaml"));
        assertThat(config.mode()).isEqualTo(Mode.BEST_EFFORT);
        @SuppressWarnings("unchecked")
        Map<String, Object> doc = (Map<String, Object>) new Yaml(new SafeConstructor(new LoaderOptions())).load(yaml);
        assertThat(doc.get("sandbox")).isEqualTo(Map.of("mode", "best-effort"));
        assertThat(doc.get("projects")).isEqualTo(List.of(Map.of("dir", ".", "spells", List.of("node")),
                Map.of("dir", "api", "spells", List.of("go")), Map.of("dir", "odd dir", "spells", List.of("rust"))));
        for (String line : yaml.split("\n")) {
            assertThat(line).as("every line is explained").contains("#");
        }
    }
}
