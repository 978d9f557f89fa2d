package dev.magus.orchestrator;

import static dev.magus.orchestrator.TestHost.DEADLINE;
import static dev.magus.orchestrator.TestHost.events;
import static dev.magus.orchestrator.TestHost.lines;
import static dev.magus.orchestrator.TestHost.parseEnv;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.RunEvent;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a confined child finds in its environment, and that one run's overlay stays its own. */
class ChildEnvironmentTest {
    static final String FAKE_GITHUB_TOKEN = "ghp_FAKEFAKEFAKEFAKEFAKEFAKEFAKE0000";
    static final String FAKE_AWS_SECRET = "FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE";

    @TempDir
    Path root;
    TestHost t;

    @BeforeEach
    void setUp() {
        TestHost.assumeLandlock();
        t = new TestHost(root).mode("required");
        t.env.put("GITHUB_TOKEN", FAKE_GITHUB_TOKEN);
        t.env.put("AWS_SECRET_ACCESS_KEY", FAKE_AWS_SECRET);
    }

    @Test
    void secretsAreDroppedAndTheRunsOwnVariablesAreSet() {
        // The private temp dir's mode is read from inside, while it exists.
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c",
                "env; echo \"tmpmode=$(stat -c %a \"$TMPDIR\")\"; echo probe > \"$TMPDIR/f\" && cat \"$TMPDIR/f\"").build());
        List<String> out = lines(events(run), RunEvent.Stream.STDOUT);
        assertThat(run.result().block(DEADLINE).status()).isZero();
        Map<String, String> env = parseEnv(out);

        assertThat(env).doesNotContainKeys("GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY");
        assertThat(String.join("\n", out)).doesNotContain(FAKE_GITHUB_TOKEN).doesNotContain(FAKE_AWS_SECRET);
        assertThat(env).containsEntry("MAGUS_SANDBOX", "required").containsEntry("MAGUS_RUN_ID", run.id())
                .containsEntry("HOME", t.home.toString());
        Path tmp = Path.of(env.get("TMPDIR"));
        assertThat(tmp.getParent()).isEqualTo(t.tempBase);
        assertThat(out).contains("tmpmode=700", "probe");
        // Removed by the time the run is seen to end.
        assertThat(tmp).doesNotExist();
        assertThat(t.tempBase).isEmptyDirectory();
    }

    @Test
    void eachRunsOverlayIsInvisibleToAConcurrentRun() {
        Orchestrator o = t.orchestrator();
        // A holds until B has printed its environment, so the two really overlap.
        Path bDone = t.workspace.resolve("b-done");
        Run a = o.submit(RunRequest.builder(t.workspace, "sh", "-c",
                        "while [ ! -e " + bDone + " ]; do sleep 0.05; done; env")
                .set("MAGUS_TEST_ONLY_A", "a-value").unset("LANG").build());
        Run b = o.submit(RunRequest.builder(t.workspace, "sh", "-c", "env; touch " + bDone).build());

        Map<String, String> envB = parseEnv(lines(events(b), RunEvent.Stream.STDOUT));
        Map<String, String> envA = parseEnv(lines(events(a), RunEvent.Stream.STDOUT));
        assertThat(a.result().block(DEADLINE).status()).isZero();
        assertThat(b.result().block(DEADLINE).status()).isZero();

        assertThat(envA).containsEntry("MAGUS_TEST_ONLY_A", "a-value").doesNotContainKey("LANG");
        assertThat(envB).doesNotContainKey("MAGUS_TEST_ONLY_A").containsEntry("LANG", "C.UTF-8");
        assertThat(envA.get("TMPDIR")).isNotEqualTo(envB.get("TMPDIR"));
        assertThat(envA.get("MAGUS_RUN_ID")).isNotEqualTo(envB.get("MAGUS_RUN_ID"));
    }
}
