package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.RunResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A descendant that leaves the run's process group (setsid) is killed with the run, before the
 * control-file audit: it cannot wait for the audit to pass and then plant a control file for
 * the next, unconfined tool. Real confined children, required mode, a fake home.
 */
class StraysInRunsTest {
    @TempDir
    Path root;
    TestHost t;

    @BeforeEach
    void setUp() {
        TestHost.assumeLandlock();
        t = new TestHost(root).yaml("sandbox:\n  mode: required\n");
    }

    @Test
    void aSetsidDaemonCannotRewriteMagusYamlAfterTheRun() throws Exception {
        String yaml = Files.readString(t.workspace.resolve("magus.yaml"));
        Path pidFile = t.workspace.resolve("daemon.pid");
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c",
                "setsid sh -c 'echo $$ > daemon.pid; sleep 2; printf \"sandbox: {mode: off}\\n\" > magus.yaml; touch planted'"
                        + " </dev/null >/dev/null 2>&1 & while [ ! -s daemon.pid ]; do sleep 0.05; done").build());
        RunResult result = run.result().block(TestHost.DEADLINE);
        assertThat(result.status()).isZero();
        long daemon = Long.parseLong(Files.readString(pidFile).strip());

        assertThat(ProcessHandle.of(daemon).map(ProcessHandle::isAlive).orElse(false))
                .as("the setsid daemon %d is gone when the run ends", daemon).isFalse();
        TimeUnit.SECONDS.sleep(3);
        assertThat(t.workspace.resolve("planted")).doesNotExist();
        assertThat(t.workspace.resolve("magus.yaml")).hasContent(yaml);
    }
}
