package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.RunEvent;
import dev.magus.events.SandboxException;
import dev.magus.orchestrator.binding.Sandbox;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The binding layer's session: in-process file calls held to the policy a confined child of the
 * same workspace gets, refusals on the session's stream with {@code layer=binding}, and the
 * children it starts confined by the kernel with their events on the same stream.
 */
class SandboxSessionTest {
    @TempDir
    Path root;
    TestHost t;
    Sandbox session;
    Path secret;

    @BeforeEach
    void setUp() throws IOException {
        TestHost.assumeLandlock();
        t = new TestHost(root).yaml("sandbox:\n  mode: required\n");
        secret = Files.createDirectories(t.home.resolve(".ssh")).resolve("id_rsa");
        Files.writeString(secret, "PRIVATE KEY\n");
        Files.writeString(t.workspace.resolve("in.txt"), "hello\n");
        session = Sandbox.open(t.orchestrator(), t.host(), RunRequest.builder(t.workspace, "true").build());
    }

    @AfterEach
    void tearDown() {
        if (session != null) {
            session.close();
        }
    }

    private List<Diagnostic> refusals() {
        session.close();
        return session.events().ofType(RunEvent.Diag.class).map(RunEvent.Diag::diagnostic).collectList().block(TestHost.DEADLINE);
    }

    @Test
    void aWorkspaceFileIsReadAndWrittenAndACredentialIsRefusedWithABindingDiagnostic() throws IOException {
        assertThat(session.files().readAllBytes(Path.of("in.txt"))).asString(StandardCharsets.UTF_8).isEqualTo("hello\n");
        session.files().write(Path.of("out.txt"), "made\n".getBytes(StandardCharsets.UTF_8));
        session.files().append(Path.of("out.txt"), "more\n".getBytes(StandardCharsets.UTF_8));
        assertThat(Files.readString(t.workspace.resolve("out.txt"))).isEqualTo("made\nmore\n");

        assertThatThrownBy(() -> session.files().readAllBytes(secret))
                .isInstanceOf(SandboxException.class)
                .satisfies(e -> assertThat(((SandboxException) e).code()).isEqualTo(Code.MGS2001));
        assertThatThrownBy(() -> session.files().write(t.home.resolve(".bashrc"), "x".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(SandboxException.class)
                .satisfies(e -> assertThat(((SandboxException) e).code()).isEqualTo(Code.MGS2002));
        assertThat(t.home.resolve(".bashrc")).doesNotExist();

        List<Diagnostic> refused = refusals();
        assertThat(refused).extracting(Diagnostic::code).containsExactly(Code.MGS2001, Code.MGS2002);
        assertThat(refused).allSatisfy(d -> assertThat(d.layer()).isEqualTo(Layer.BINDING));
        assertThat(refused.get(0).subject()).isEqualTo(secret.toString());
    }

    @Test
    void aRefusalIsCountedInTheOrchestratorsMetersUnderLayerBinding() {
        io.micrometer.core.instrument.simple.SimpleMeterRegistry registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        try (Orchestrator o = Orchestrator.builder(t.host()).meterRegistry(registry).build();
                Sandbox s = Sandbox.open(o, t.host(), RunRequest.builder(t.workspace, "true").build())) {
            assertThatThrownBy(() -> s.files().readAllBytes(secret)).isInstanceOf(SandboxException.class);
        }
        assertThat(registry.find("magus.diagnostics").tag("code", "MGS2001").tag("layer", "binding").counter())
                .isNotNull()
                .satisfies(c -> assertThat(c.count()).isEqualTo(1.0));
    }

    @Test
    void aLinkInTheWorkspaceToACredentialIsRefusedWhereItLeads() throws IOException {
        Files.createSymbolicLink(t.workspace.resolve("key"), secret);
        assertThatThrownBy(() -> session.files().readAllBytes(Path.of("key")))
                .isInstanceOf(SandboxException.class)
                .satisfies(e -> assertThat(((SandboxException) e).code()).isEqualTo(Code.MGS2001));
        assertThatThrownBy(() -> session.files().write(Path.of("key"), "x".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(SandboxException.class);
        assertThat(Files.readString(secret)).isEqualTo("PRIVATE KEY\n");
    }

    @Test
    void aControlFileIsRefusedForWritingAndReadable() throws IOException {
        assertThatThrownBy(() -> session.files().write(Path.of("magus.yaml"), "sandbox:\n  mode: off\n".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(SandboxException.class)
                .satisfies(e -> assertThat(((SandboxException) e).code()).isEqualTo(Code.MGS2002));
        assertThatThrownBy(() -> session.files().delete(Path.of("magus.yaml"))).isInstanceOf(SandboxException.class);
        assertThatThrownBy(() -> session.files().move(Path.of("in.txt"), Path.of(".envrc"))).isInstanceOf(SandboxException.class);
        assertThat(Files.readString(t.workspace.resolve("magus.yaml"))).contains("required");
        assertThat(session.files().readAllBytes(Path.of("magus.yaml"))).isNotEmpty();
    }

    @Test
    void directoriesAreMadeListedAndEmptiedAndNamesMovedAndCopiedInsideTheWorkspace() throws IOException {
        session.files().createDirectories(Path.of("a/b/c"));
        session.files().write(Path.of("a/b/c/f"), new byte[] {1, 2, 3});
        session.files().copy(Path.of("a/b/c/f"), Path.of("a/g"));
        session.files().move(Path.of("a/g"), Path.of("a/b/h"));
        assertThat(session.files().list(Path.of("a/b"))).containsExactlyInAnyOrder(Path.of("a/b/c"), Path.of("a/b/h"));
        assertThat(Files.readAllBytes(t.workspace.resolve("a/b/h"))).containsExactly(1, 2, 3);
        session.files().delete(Path.of("a/b/c/f"));
        session.files().delete(Path.of("a/b/c"));
        assertThat(t.workspace.resolve("a/b/c")).doesNotExist();

        assertThatThrownBy(() -> session.files().move(Path.of("a/b/h"), t.home.resolve("h")))
                .isInstanceOf(SandboxException.class)
                .satisfies(e -> assertThat(((SandboxException) e).code()).isEqualTo(Code.MGS2002));
        assertThatThrownBy(() -> session.files().list(t.home.resolve(".ssh")))
                .isInstanceOf(SandboxException.class)
                .satisfies(e -> assertThat(((SandboxException) e).code()).isEqualTo(Code.MGS2001));
        assertThat(t.workspace.resolve("a/b/h")).exists();
    }

    @Test
    void aLinkItselfIsRemovedNotWhatItPointsAt() throws IOException {
        Files.createSymbolicLink(t.workspace.resolve("key"), secret);
        session.files().delete(Path.of("key"));
        assertThat(t.workspace.resolve("key")).doesNotExist();
        assertThat(secret).exists();
    }

    @Test
    void theEnvironmentIsTheOneAChildGetsWithoutCredentialsAndWithTheOverlay() {
        t.env.put("AWS_SECRET_ACCESS_KEY", "secret");
        t.env.put("GITHUB_TOKEN", "token");
        try (Sandbox s = Sandbox.open(t.orchestrator(), t.host(),
                RunRequest.builder(t.workspace, "true").set("MY_SETTING", "on").build())) {
            assertThat(s.env()).doesNotContainKeys("AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN").containsEntry("MY_SETTING", "on")
                    .containsEntry("HOME", t.home.toString()).containsKey("PATH");
            assertThat(Path.of(s.env().get("TMPDIR"))).startsWith(t.tempBase);
            Run run = s.submit(List.of("sh", "-c", "echo \"$MY_SETTING ${GITHUB_TOKEN:-none}\""));
            List<RunEvent> events = TestHost.events(run);
            assertThat(TestHost.lines(events, RunEvent.Stream.STDOUT)).containsExactly("on none");
        }
    }

    @Test
    void aChildStartedByTheSessionIsConfinedAndItsDenialComesOutOfTheSessionsStream() {
        Run run = session.submit(List.of("sh", "-c", "cat " + secret + "; echo done"));
        assertThat(run.result().block(TestHost.DEADLINE).status()).isZero();
        assertThatThrownBy(() -> session.files().readAllBytes(secret)).isInstanceOf(SandboxException.class);
        session.close();
        List<RunEvent> events = session.events().collectList().block(TestHost.DEADLINE);
        assertThat(TestHost.lines(events, RunEvent.Stream.STDOUT)).containsExactly("done");
        List<Diagnostic> diags = events.stream().filter(RunEvent.Diag.class::isInstance).map(e -> ((RunEvent.Diag) e).diagnostic())
                .filter(d -> d.code() == Code.MGS2001).toList();
        assertThat(diags).extracting(Diagnostic::layer).contains(Layer.KERNEL, Layer.BINDING);
        assertThat(events).anySatisfy(e -> assertThat(e).isInstanceOf(RunEvent.Exited.class));
    }
}
