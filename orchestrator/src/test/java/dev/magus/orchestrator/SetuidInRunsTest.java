package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.RunEvent;
import dev.magus.orchestrator.run.RunRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A confined child's attempt to leave a set-user-ID file in the workspace, end to end: the
 * seccomp layer refuses the mode, and the tool's message becomes an MGS2002 naming the file.
 */
class SetuidInRunsTest {
    @TempDir
    Path root;
    TestHost t;

    @BeforeEach
    void setUp() {
        TestHost.assumeLandlock();
        t = new TestHost(root);
    }

    private List<RunEvent> run(String script) {
        t.yaml("""
                sandbox:
                  mode: required
                """);
        try (Orchestrator o = Orchestrator.builder(t.host()).build()) {
            return TestHost.events(o.submit(RunRequest.builder(t.workspace, "/bin/sh", "-c", script).build()));
        }
    }

    private static List<Diagnostic> writes(List<RunEvent> events) {
        return events.stream().filter(e -> e instanceof RunEvent.Diag).map(e -> ((RunEvent.Diag) e).diagnostic())
                .filter(d -> d.code() == Code.MGS2002).toList();
    }

    @Test
    void chmod4755IsRefusedAndReportedNamingTheFile() throws IOException {
        List<RunEvent> events = run("cp /bin/sh sh && chmod 4755 sh; cp /bin/sh plain && chmod 755 plain");
        Path sh = t.workspace.resolve("sh");
        assertThat((Integer) Files.getAttribute(sh, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 06000).isZero();
        assertThat((Integer) Files.getAttribute(t.workspace.resolve("plain"), "unix:mode") & 07777).isEqualTo(0755);
        assertThat(writes(events)).as(TestHost.text(events)).anySatisfy(d -> {
            assertThat(d.subject()).isEqualTo(sh.toString());
            assertThat(d.layer()).isEqualTo(Layer.KERNEL);
            assertThat(d.operation()).isEqualTo(Operation.WRITE);
            assertThat(d.source()).isEqualTo("inferred:stderr");
        });
        assertThat(writes(events)).noneMatch(d -> d.subject().endsWith("/plain"));
    }

    @Test
    void aSetUserIdFileTheRunMovedIntoPlaceIsReportedByTheAuditAndCleared() throws Exception {
        // There before the run (as a checkout could bring it), older than the audit's slack.
        Path stash = Files.createDirectories(t.workspace.resolve("stash"));
        Path sh = Files.copy(Path.of("/bin/sh").toRealPath(), stash.resolve("sh"));
        Files.setAttribute(sh, "unix:mode", 04755);
        Thread.sleep(2_200);
        List<RunEvent> events = run("mkdir -p out && mv stash/sh out/sh");
        Path moved = t.workspace.resolve("out/sh");
        assertThat(moved).exists();
        assertThat((Integer) Files.getAttribute(moved, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 06000).isZero();
        assertThat(writes(events)).as(TestHost.text(events)).anySatisfy(d -> {
            assertThat(d.subject()).isEqualTo(moved.toString());
            assertThat(d.layer()).isEqualTo(Layer.AUDIT);
        });
    }
}
