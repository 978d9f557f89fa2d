package dev.magus.orchestrator;

import static dev.magus.orchestrator.TestHost.DEADLINE;
import static dev.magus.orchestrator.TestHost.events;
import static dev.magus.orchestrator.TestHost.lines;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.RunEvent;
import dev.magus.orchestrator.pipeline.ConfigStage;
import dev.magus.orchestrator.pipeline.RunConfig;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.policy.decl.MergedDecl;
import dev.magus.orchestrator.pipeline.PolicyStage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Projects, spells and targets through the run pipeline, with real confined children. */
class SpellsAndTargetsTest {
    @TempDir
    Path root;
    TestHost t;

    @BeforeEach
    void setUp() throws IOException {
        t = new TestHost(root);
        t.env.put("XDG_CACHE_HOME", t.home.resolve(".cache").toString());
        Files.createDirectories(t.workspace.resolve("api/docs"));
        Files.createDirectories(t.workspace.resolve("web"));
        t.yaml("""
                sandbox:
                  mode: required
                projects:
                  - dir: .
                    spells: [node]
                  - dir: api
                    spells: [go]
                    targets:
                      where:
                        run: [sh, -c, 'pwd; echo "$FIXTURES_DIR"; echo x > "$FIXTURES_DIR/written"']
                        writes: true
                        sandbox:
                          allow: [{env: FIXTURES_DIR, mode: rw}]
                          env: {passthrough: [FIXTURES_DIR]}
                  - dir: api/docs
                  - dir: web
                    spells: [java]
                """);
    }

    private RunConfig config(RunRequest request) {
        return ConfigStage.resolve("t", request, t.env, t.home);
    }

    @Test
    void aPlainRunGetsEverySpellAndAnOpGetsItsProjectsPlusItsOwn() {
        assertThat(config(RunRequest.builder(t.workspace.resolve("web"), "true").build()).spellNames())
                .containsExactly("node", "go", "java");
        RunConfig op = config(RunRequest.builder(t.workspace.resolve("web"), "true").op("python").build());
        assertThat(op.spellNames()).containsExactly("java", "python");
        assertThat(op.project()).map(p -> p.dir()).contains("web");
        MergedDecl merged = PolicyStage.declared(op, t.host().facts(t.tempBase));
        assertThat(merged.allow()).extracting(a -> a.layer().label()).contains("spell:java", "spell:python")
                .doesNotContain("spell:go", "spell:node");
        assertThat(config(RunRequest.builder(t.workspace, "true").op("go").build()).spellNames()).containsExactly("node", "go");
    }

    @Test
    void aTargetRunsInItsProjectDirWithItsLayerAndSaysWhetherItWrites() throws IOException {
        Path fixtures = Files.createDirectories(root.resolve("fixtures"));
        t.env.put("FIXTURES_DIR", fixtures.toString());
        RunConfig c = config(RunRequest.builder(t.workspace.resolve("web"), List.of()).target("where").build());
        assertThat(c.workingDir()).isEqualTo(t.workspace.resolve("api"));
        assertThat(c.target()).hasValueSatisfying(tg -> {
            assertThat(tg.writes()).isTrue();
            assertThat(tg.ref()).isEqualTo("api/where");
        });
        assertThat(c.projects().descendantDirs(c.project().orElseThrow(), c.workspaceRoot()))
                .containsExactly(t.workspace.resolve("api/docs"));
        assertThat(PolicyStage.declared(c, t.host().facts(t.tempBase)).allow()).extracting(a -> a.origin()).contains("target:api/where");

        TestHost.assumeLandlock();
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, List.of()).target("api/where").build());
        List<RunEvent> events = events(run);
        assertThat(lines(events, RunEvent.Stream.STDOUT)).containsExactly(t.workspace.resolve("api").toString(),
                fixtures.toString());
        assertThat(run.result().block(DEADLINE).status()).isZero();
        assertThat(fixtures.resolve("written")).hasContent("x");
        assertThat(events.get(0)).isInstanceOfSatisfying(RunEvent.Started.class,
                s -> assertThat(s.argv()).first().isEqualTo("sh"));
    }

    @Test
    void withoutTheTargetLayerTheSameWriteIsRefused() throws IOException {
        TestHost.assumeLandlock();
        Path fixtures = Files.createDirectories(root.resolve("fixtures"));
        t.env.put("FIXTURES_DIR", fixtures.toString());
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace.resolve("api"), "sh", "-c",
                "echo x > \"" + fixtures + "/written\"").build());
        List<RunEvent> events = events(run);
        assertThat(run.result().block(DEADLINE).status()).isNotZero();
        assertThat(fixtures.resolve("written")).doesNotExist();
        assertThat(events).filteredOn(e -> e instanceof RunEvent.Diag).extracting(e -> ((RunEvent.Diag) e).diagnostic())
                .extracting(Diagnostic::code).contains(Code.MGS2002);
    }

    @Test
    void refusalsNameTheirSource() throws IOException {
        Run unknownOp = t.orchestrator().submit(RunRequest.builder(t.workspace, "true").op("cobol").build());
        assertThat(events(unknownOp)).filteredOn(e -> e instanceof RunEvent.Diag).extracting(e -> ((RunEvent.Diag) e).diagnostic())
                .singleElement().satisfies(d -> {
                    assertThat(d.code()).isEqualTo(Code.MGS2004);
                    assertThat(d.source()).isEqualTo("--op");
                });
        assertThat(unknownOp.result().block(DEADLINE).status()).isEqualTo(125);

        Run unknownTarget = t.orchestrator().submit(RunRequest.builder(t.workspace, List.of()).target("deploy").build());
        assertThat(events(unknownTarget)).filteredOn(e -> e instanceof RunEvent.Diag)
                .extracting(e -> ((RunEvent.Diag) e).diagnostic().source()).containsExactly("--target");

        Files.createDirectories(t.workspace.resolve(".magus/spells"));
        Files.writeString(t.workspace.resolve(".magus/spells/go.yaml"), "sandbox: {allow: [{path: ~/.netrc}]}\n");
        Run shadow = t.orchestrator().submit(RunRequest.builder(t.workspace, "true").build());
        assertThat(events(shadow)).filteredOn(e -> e instanceof RunEvent.Diag).extracting(e -> ((RunEvent.Diag) e).diagnostic())
                .singleElement().satisfies(d -> assertThat(d.message()).contains("shadow the built-in spell go"));
        assertThat(shadow.result().block(DEADLINE).status()).isEqualTo(125);
    }
}
