package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.RunEvent;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.RunResult;
import dev.magus.telemetry.ndjson.NdjsonSink;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14, MGS3001: a write-mode dispatch on the workspace's root project (a
 * {@link RunRequest#descendantAudit()} naming its descendants) that writes inside a registered
 * descendant project fails, naming the files. Real confined children under required mode.
 */
class DescendantAuditInRunsTest {
    @TempDir
    Path root;
    TestHost t;

    @BeforeEach
    void setUp() throws IOException, InterruptedException {
        TestHost.assumeLandlock();
        t = new TestHost(root).yaml("sandbox:\n  mode: required\n");
        write("README.md", "# root\n");
        write("api/README.md", "# api\n");
        write("api/docs/a.md", "# a\n");
        write("api/docs/b.md", "# b\n");
        write("api/sub/deep/notes.md", "# deep\n");
        write("web/index.md", "# web\n");
        write("src/main.c", "int main(void) { return 0; }\n");
        // At rest before the run, as a checkout is.
        Thread.sleep(300);
    }

    private void write(String rel, String text) throws IOException {
        Path p = t.workspace.resolve(rel);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
    }

    private record Outcome(RunResult result, List<RunEvent> events, List<Diagnostic> mgs3001) {
        String text() {
            return TestHost.text(events);
        }
    }

    private Outcome run(Orchestrator o, String script, String... descendants) {
        Run run = o.submit(RunRequest.builder(t.workspace, "sh", "-c", script)
                .descendantAudit(List.of(descendants).stream().map(Path::of).toList()).build());
        List<RunEvent> events = TestHost.events(run);
        RunResult result = run.result().block(TestHost.DEADLINE);
        List<Diagnostic> found = events.stream().filter(e -> e instanceof RunEvent.Diag)
                .map(e -> ((RunEvent.Diag) e).diagnostic()).filter(d -> d.code() == Code.MGS3001).toList();
        return new Outcome(result, events, found);
    }

    private Outcome run(String script, String... descendants) {
        return run(t.orchestrator(), script, descendants);
    }

    @Test
    void aWriteIntoADescendantFailsTheRunNamingTheFile() {
        Outcome o = run("echo x > api/docs/a.md", "api", "web");
        assertThat(o.mgs3001()).as(o.text()).hasSize(1);
        Diagnostic d = o.mgs3001().get(0);
        assertThat(d.layer()).isEqualTo(Layer.AUDIT);
        assertThat(d.details()).containsEntry("project", "api").containsEntry("files", "api/docs/a.md (changed)")
                .containsEntry("count", "1");
        assertThat(d.message()).contains("api/docs/a.md");
        assertThat(o.result().status()).as("the child exited 0, the audit fails the run").isEqualTo(1);
        assertThat(o.events().get(o.events().size() - 1)).isInstanceOf(RunEvent.Exited.class);
    }

    @Test
    void writesOnlyOutsideTheDescendantsPass() throws IOException {
        Outcome o = run("echo x > README.md; echo y > src/new.c; mkdir -p build && echo z > build/out", "api", "web");
        assertThat(o.mgs3001()).as(o.text()).isEmpty();
        assertThat(o.result().status()).isZero();
        assertThat(Files.readString(t.workspace.resolve("build/out"))).isEqualTo("z\n");
    }

    @Test
    void aWriteInANestedNestedProjectIsThatProjects() {
        Outcome o = run("echo new > api/sub/deep/new.md", "api", "api/sub", "api/sub/deep");
        assertThat(o.mgs3001()).as(o.text()).hasSize(1);
        assertThat(o.mgs3001().get(0).details()).containsEntry("project", "api/sub/deep")
                .containsEntry("files", "api/sub/deep/new.md (created)");
        assertThat(o.mgs3001().get(0).subject()).isEqualTo(t.workspace.resolve("api/sub/deep").toString());
        assertThat(o.result().status()).isEqualTo(1);
    }

    @Test
    void deletedFilesAreNamed() {
        Outcome o = run("rm api/docs/b.md && rm -r api/sub", "api");
        assertThat(o.mgs3001()).as(o.text()).hasSize(1);
        assertThat(o.mgs3001().get(0).details()).containsEntry("count", "4").containsEntry("files",
                "api/docs/b.md (removed), api/sub (removed), api/sub/deep (removed), api/sub/deep/notes.md (removed)");
    }

    @Test
    void aFormatterLikeRecursiveWriteFromTheRootIsCaughtInEachDescendant() throws IOException {
        // prettier --write '**/*.md' from the root: it reaches into api/ and web/.
        Outcome o = run("find . -name '*.md' -exec sh -c 'for f; do printf \"formatted\\n\" > \"$f\"; done' sh {} +",
                "api", "web");
        assertThat(o.mgs3001()).as(o.text()).extracting(d -> d.details().get("project")).containsExactly("api", "web");
        assertThat(o.mgs3001().get(0).details()).containsEntry("count", "4").containsEntry("files",
                "api/README.md (changed), api/docs/a.md (changed), api/docs/b.md (changed),"
                        + " api/sub/deep/notes.md (changed)");
        assertThat(o.mgs3001().get(1).details()).containsEntry("files", "web/index.md (changed)");
        assertThat(o.result().status()).isEqualTo(1);
        assertThat(Files.readString(t.workspace.resolve("api/docs/a.md"))).as("nothing is undone")
                .isEqualTo("formatted\n");
    }

    @Test
    void aChildThatFailsKeepsItsStatus() {
        Outcome o = run("echo x > web/new.md; exit 3", "web");
        assertThat(o.mgs3001()).as(o.text()).hasSize(1);
        assertThat(o.result().status()).isEqualTo(3);
    }

    @Test
    void underModeOffTheScopeRuleStillHolds() {
        t.yaml("sandbox:\n  mode: off\n");
        Outcome o = run("echo x > api/docs/c.md", "api");
        assertThat(o.mgs3001()).as(o.text()).hasSize(1);
        assertThat(o.result().status()).isEqualTo(1);
    }

    @Test
    void aRunWithoutTheOptionIsNotAudited() {
        Outcome o = run("echo x > api/docs/a.md");
        assertThat(o.mgs3001()).isEmpty();
        assertThat(o.result().status()).isZero();
    }

    @Test
    void theFindingReachesNdjsonAndMetrics() {
        ByteArrayOutputStream ndjson = new ByteArrayOutputStream();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Orchestrator o = Orchestrator.builder(t.host()).sink(new NdjsonSink(ndjson)).meterRegistry(registry).build()) {
            Outcome out = run(o, "echo x > api/new.md", "api");
            assertThat(out.mgs3001()).as(out.text()).hasSize(1);
        }
        assertThat(ndjson.toString(StandardCharsets.UTF_8))
                .containsPattern("\"type\":\"diagnostic\".*\"code\":\"MGS3001\".*\"layer\":\"audit\"");
        assertThat(registry.get("magus.diagnostics").tag("code", "MGS3001").tag("layer", "audit").counter().count())
                .isEqualTo(1.0);
    }
}
