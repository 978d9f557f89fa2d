package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.RunEvent;
import dev.magus.landlock.supervise.Support;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Supervised runs through the product's own path: the run's real policy checks what the
 * supervisor read from the child, and its exact report merges with the inferred one.
 */
class SupervisedRunsTest {
    @TempDir
    Path root;
    TestHost t;
    Path secret;

    @BeforeEach
    void setUp() throws Exception {
        TestHost.assumeLandlock();
        Support s = Support.probe();
        if (!s.available()) {
            System.err.println("SKIP SupervisedRunsTest: " + s.reason());
        }
        Assumptions.assumeTrue(s.available(), s.reason());
        t = new TestHost(root).mode("required");
        secret = Files.writeString(Files.createDirectories(t.home.resolve(".aws")).resolve("credentials"), "AKIAFAKEFAKEFAKE\n");
    }

    @Test
    void aSilentReadIsAnExactDenialFromTheSupervisor() throws Exception {
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c",
                "cat " + secret + " 2>/dev/null; cat " + t.workspace.resolve("missing") + " 2>/dev/null; true")
                .supervise(true).build());
        List<RunEvent> events = TestHost.events(run);
        assertThat(KernelDenialsInRunsTest.kernel(events)).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2001);
            assertThat(d.subject()).isEqualTo(secret.toString());
            assertThat(d.source()).isEqualTo("supervisor");
            assertThat(d.details()).containsEntry("class", "attack");
        });
        assertThat(run.result().block(TestHost.DEADLINE).status()).isZero();
    }

    @Test
    void aPrintedDenialIsReportedOnceAndExactly() throws Exception {
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c", "cat " + secret + "; true")
                .supervise(true).build());
        assertThat(KernelDenialsInRunsTest.kernel(TestHost.events(run))).singleElement()
                .satisfies(d -> assertThat(d.source()).isEqualTo("supervisor"));
    }

    @Test
    void theWorkspaceSettingSupervisesEveryRun() throws Exception {
        t.yaml("sandbox:\n  mode: required\n  supervise: true\n");
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c", "cat " + secret + " 2>/dev/null; true")
                .build());
        assertThat(KernelDenialsInRunsTest.kernel(TestHost.events(run))).extracting(Diagnostic::source).containsExactly("supervisor");
    }
}
