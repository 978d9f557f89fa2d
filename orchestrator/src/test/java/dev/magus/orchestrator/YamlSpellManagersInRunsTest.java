package dev.magus.orchestrator;

import static dev.magus.orchestrator.TestHost.DEADLINE;
import static dev.magus.orchestrator.TestHost.events;
import static dev.magus.orchestrator.TestHost.lines;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.RunEvent;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A version manager a workspace's YAML spell declares gets MGS2006 in a real run, as the built-ins' do. */
class YamlSpellManagersInRunsTest {
    @TempDir
    Path root;
    TestHost t;

    @BeforeEach
    void setUp() throws IOException {
        TestHost.assumeLandlock();
        t = new TestHost(root);
        Path spells = Files.createDirectories(t.workspace.resolve(".magus/spells"));
        Files.writeString(spells.resolve("jenv.yaml"), "sandbox:\n  env:\n    passthrough: [JENV_VERSION]\n"
                + "versionManagers:\n  - {name: jenv, shims: [.jenv/shims], selectors: [JENV_VERSION]}\n");
        Path shims = Files.createDirectories(t.home.resolve(".jenv/shims"));
        t.env.put("PATH", shims + ":" + t.env.get("PATH"));
        t.env.put("JENV_VERSION", "17");
    }

    private List<RunEvent> run() {
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c", "echo \"v=$JENV_VERSION\"").build());
        List<RunEvent> events = events(run);
        assertThat(run.result().block(DEADLINE).status()).as("%s", TestHost.text(events)).isZero();
        return events;
    }

    private static List<Diagnostic> hints(List<RunEvent> events) {
        return events.stream().filter(e -> e instanceof RunEvent.Diag).map(e -> ((RunEvent.Diag) e).diagnostic())
                .filter(d -> d.code() == Code.MGS2006).toList();
    }

    @Test
    void unboundItDrivesNoHintSinceAClonedRepositoryMayHaveBroughtItAndBoundTheVariableIsKept() {
        // A .magus/spells file bound by no project must not make runs suggest passing variables.
        t.yaml("sandbox:\n  mode: required\nprojects:\n  - {dir: .}\n");
        List<RunEvent> unbound = run();
        assertThat(lines(unbound, RunEvent.Stream.STDOUT)).containsExactly("v=");
        assertThat(hints(unbound)).isEmpty();

        t.yaml("sandbox:\n  mode: required\nprojects:\n  - {dir: ., spells: [jenv]}\n");
        List<RunEvent> bound = run();
        assertThat(lines(bound, RunEvent.Stream.STDOUT)).containsExactly("v=17");
        assertThat(hints(bound)).isEmpty();
    }
}
