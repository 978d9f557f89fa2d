package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.RunEvent;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A script the policy lets run, whose {@code #!} interpreter it does not: the kernel refuses
 * the interpreter, and the MGS2007 names the interpreter with the policy's own advice, not the
 * script. Real children under Landlock, a fake home.
 */
class InterpreterRefusalTest {
    @TempDir
    Path root;
    TestHost t;

    @BeforeEach
    void setUp() {
        TestHost.assumeLandlock();
        t = new TestHost(root).yaml("sandbox:\n  mode: required\n");
    }

    @Test
    void theRefusedInterpreterIsNamedNotTheScript() throws java.io.IOException {
        Path interpreter = TestHost.script(t.home.resolve("Downloads"), "interp", "echo ran");
        Path script = TestHost.script(t.workspace, "hb.sh", "echo never");
        java.nio.file.Files.writeString(script, "#!" + interpreter + "\necho never\n");
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, script.toString()).build());
        List<RunEvent> events = TestHost.events(run);
        assertThat(run.result().block(TestHost.DEADLINE).status()).isEqualTo(126);
        List<Diagnostic> refused = events.stream().filter(e -> e instanceof RunEvent.Diag).map(e -> ((RunEvent.Diag) e).diagnostic())
                .filter(d -> d.code() == Code.MGS2007).toList();
        assertThat(refused).singleElement().satisfies(d -> assertThat(d.subject()).isEqualTo(interpreter.toString()));
    }
}
