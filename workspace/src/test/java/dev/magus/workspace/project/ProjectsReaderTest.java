package dev.magus.workspace.project;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.Code;
import dev.magus.events.SandboxException;
import dev.magus.policy.decl.DeclLayer;
import dev.magus.workspace.yaml.YamlFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProjectsReaderTest {
    private static final YamlFile FILE = new YamlFile("magus.yaml", "");
    private static final Set<String> SPELLS = Set.of("node", "go", "java");

    static Projects read(String text) {
        return ProjectsReader.read(FILE, FILE.compose(text), SPELLS::contains);
    }

    static final String SAMPLE = """
            sandbox:
              mode: required
            projects:
              - dir: .
                spells: [node]
              - dir: ./api/
                spells: [go]
                targets:
                  fmt:
                    run: [gofmt, -w, .]
                    writes: true
                  test:
                    run: [go, test, ./...]
                    sandbox:
                      allow: [{env: FIXTURES_DIR, base: xdgData, path: fixtures, mode: rw}]
                      env: {passthrough: [FIXTURES_DIR]}
              - dir: api/docs
              - dir: web
                spells: [node, java]
                targets:
                  test: {run: [npm, test]}
            """;

    @Test
    void projectsTargetsAndTheirLayers() {
        Projects p = read(SAMPLE);
        assertThat(p.all()).extracting(Project::dir).containsExactly(".", "api", "api/docs", "web");
        assertThat(p.boundSpells()).containsExactly("node", "go", "java");
        Target fmt = p.target("api/fmt", "--target");
        assertThat(fmt.writes()).isTrue();
        assertThat(fmt.run()).containsExactly("gofmt", "-w", ".");
        assertThat(fmt.project()).isEqualTo("api");
        assertThat(p.target("fmt", "--target")).isEqualTo(fmt);
        Target test = p.target("api/test", "--target");
        assertThat(test.writes()).isFalse();
        assertThat(test.sandbox().layer()).isEqualTo(DeclLayer.target("api/test"));
        assertThat(test.sandbox().layer().label()).isEqualTo("target:api/test");
        assertThat(test.sandbox().allow()).singleElement().satisfies(a -> {
            assertThat(a.origin()).isEqualTo("target:api/test");
            assertThat(a.site().source("mode")).isEqualTo("magus.yaml:15:76 projects[1].targets.test.sandbox.allow[0].mode");
        });
        assertThat(test.sandbox().passthrough().permits("FIXTURES_DIR")).isTrue();
        assertThatThrownBy(() -> p.target("test", "--target")).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.diagnostic().message()).contains("several projects").contains("api/test, web/test"));
        assertThatThrownBy(() -> p.target("lint", "TARGET")).isInstanceOfSatisfying(SandboxException.class, e -> {
            assertThat(e.diagnostic().message()).contains("no target is named 'lint'");
            assertThat(e.diagnostic().source()).isEqualTo("TARGET");
        });
    }

    @Test
    void nestedProjectsAreDescendantsOfTheirParents() {
        Projects p = read(SAMPLE);
        Project root = p.at(".").orElseThrow();
        Project api = p.at("api").orElseThrow();
        assertThat(p.descendants(root)).extracting(Project::dir).containsExactly("api", "api/docs", "web");
        assertThat(p.descendants(api)).extracting(Project::dir).containsExactly("api/docs");
        assertThat(p.descendants(p.at("web").orElseThrow())).isEmpty();
        assertThat(p.descendantDirs(api, Path.of("/ws"))).containsExactly(Path.of("/ws/api/docs"));
        assertThat(p.holding("api/docs/x")).map(Project::dir).contains("api/docs");
        assertThat(p.holding("apiary")).map(Project::dir).contains(".");
        assertThat(p.holding(Path.of("/ws"), Path.of("/ws/web/src"))).map(Project::dir).contains("web");
        assertThat(p.holding(Path.of("/ws"), Path.of("/elsewhere"))).isEmpty();
        assertThat(read("projects: [{dir: a}]").holding(".")).isEmpty();
    }

    @Test
    void whichSpellsAProcessGets() {
        Projects p = read(SAMPLE);
        Optional<Project> api = p.at("api");
        assertThat(SpellChoice.spells(p, Optional.empty(), api)).containsExactly("node", "go", "java");
        assertThat(SpellChoice.spells(p, Optional.of("go"), p.at("."))).containsExactly("node", "go");
        assertThat(SpellChoice.spells(p, Optional.of("node"), p.at("web"))).containsExactly("node", "java");
        assertThat(SpellChoice.spells(p, Optional.of("java"), Optional.empty())).containsExactly("java");
        assertThat(SpellChoice.spells(Projects.NONE, Optional.empty(), Optional.empty())).isEmpty();
    }

    @Test
    void whatCannotBeHonoredIsMgs2004WithItsPosition() {
        record Case(String yaml, String source, String says) {
        }
        List<Case> cases = List.of(
                new Case("projects: [{dir: ., spells: [cobol]}]", "magus.yaml:1:30 projects[0].spells[0]", "unknown spell 'cobol'"),
                new Case("projects: [{dir: ., color: red}]", "magus.yaml:1:21 projects[0].color", "unknown key 'color'"),
                new Case("projects: [{spells: [go]}]", "magus.yaml:1:12 projects[0].dir", "needs a dir"),
                new Case("projects: [{dir: ../x}]", "magus.yaml:1:18 projects[0].dir", "leaves the workspace"),
                new Case("projects: [{dir: a/../../x}]", "magus.yaml:1:18 projects[0].dir", "leaves the workspace"),
                new Case("projects: [{dir: /etc}]", "magus.yaml:1:18 projects[0].dir", "is not relative"),
                new Case("projects: [{dir: api}, {dir: ./api}]", "magus.yaml:1:24 projects[1].dir", "registered twice"),
                new Case("projects: [{dir: ., targets: {t: {run: []}}}]", "magus.yaml:1:40 projects[0].targets.t.run", "empty run"),
                new Case("projects: [{dir: ., targets: {t: {writes: true}}}]", "magus.yaml:1:31 projects[0].targets.t.run",
                        "has no run"),
                new Case("projects: [{dir: ., targets: {t: {run: [x], writes: yes please}}}]",
                        "magus.yaml:1:53 projects[0].targets.t.writes", "true or false"),
                new Case("projects: [{dir: ., targets: {t: {run: [x], sandbox: {allow: [{path: x}]}}}}]",
                        "magus.yaml:1:70 projects[0].targets.t.sandbox.allow[0].path", "relative and has no base"),
                new Case("projects: [{dir: ., targets: {t: {run: [x], sandbox: {mode: off}}}}]",
                        "magus.yaml:1:55 projects[0].targets.t.sandbox.mode", "unknown key 'mode'"),
                new Case("projects: [{dir: ., targets: {\"a/b\": {run: [x]}}}]", "magus.yaml:1:31 projects[0].targets.a/b",
                        "cannot be named"),
                new Case("projects: {dir: .}", "magus.yaml:1:11 projects", "must be a list"));
        for (Case c : cases) {
            assertThatThrownBy(() -> read(c.yaml())).as(c.yaml()).isInstanceOfSatisfying(SandboxException.class, e -> {
                assertThat(e.code()).isEqualTo(Code.MGS2004);
                assertThat(e.diagnostic().source()).as(c.yaml()).isEqualTo(c.source());
                assertThat(e.diagnostic().message()).as(c.yaml()).contains(c.says());
            });
        }
    }

    @Test
    void aProjectDirMustBeADirectoryInsideTheWorkspaceOnDisk(@TempDir Path ws) throws IOException {
        Files.createDirectories(ws.resolve("api"));
        Files.createSymbolicLink(ws.resolve("out"), Path.of("/etc"));
        ProjectDirs.check(read("projects: [{dir: .}, {dir: api}]"), ws);
        assertThatThrownBy(() -> ProjectDirs.check(read("projects: [{dir: out}]"), ws))
                .isInstanceOfSatisfying(SandboxException.class, e -> {
                    assertThat(e.diagnostic().message()).contains("leads out of the workspace");
                    assertThat(e.diagnostic().source()).isEqualTo("magus.yaml:1:12 dir");
                });
        assertThatThrownBy(() -> ProjectDirs.check(read("projects: [{dir: gone}]"), ws))
                .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.diagnostic().message()).contains("does not exist"));
    }
}
