package dev.magus.workspace.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Diagnostic;
import dev.magus.policy.control.ControlFiles;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.quarantine.Kept;
import dev.magus.workspace.quarantine.Manifest;
import dev.magus.workspace.quarantine.Quarantine;
import dev.magus.workspace.quarantine.Retention;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The audit keeps what it takes in the quarantine first, and takes nothing it could not keep. */
class QuarantinedAuditTest {
    /** The audits' walks kept from run to run, as one process keeps them. */
    private final AuditCaches caches = new AuditCaches();
    Path dir;
    Path ws;
    Path hooks;
    StateDir state;

    @BeforeEach
    void make() throws IOException {
        dir = Files.createTempDirectory("magus-quarantined-audit-").toRealPath();
        ws = Files.createDirectories(dir.resolve("ws"));
        hooks = Files.createDirectories(ws.resolve(".git/hooks"));
        Files.writeString(ws.resolve(".git/config"), "[core]\n\tbare = false\n");
        state = new StateDir(dir.resolve("state"));
    }

    @AfterEach
    void remove() throws IOException {
        Restorer.removeEntry(dir);
    }

    private ControlFileAudit audit(Retention retention) {
        return ControlFileAudit.of(ControlFiles.of(ws, List.of(ws.resolve(".git"))), Readers.java(), caches)
                .quarantiningIn(state, retention);
    }

    @Test
    void aPlantedHookIsKeptThenRemovedAndTheDiagnosticNamesTheEntry() throws IOException {
        ControlFileAudit.Baseline b = audit(Retention.DEFAULT).before();
        Path hook = Files.writeString(hooks.resolve("pre-commit"), "#!/bin/sh\nevil\n");
        ControlFileAudit.Report r = b.after(ControlFilesAction.RESTORE, "run1");
        assertThat(r.changed()).isTrue();
        assertThat(hook).doesNotExist();
        Diagnostic d = r.diagnostics().get(0);
        assertThat(d.details()).containsEntry("quarantine", "run1/1").containsEntry("restored", "true");
        assertThat(d.message()).contains("magus quarantine restore run1 1");
        Kept k = Quarantine.in(state).read("run1").orElseThrow().entries().get(0);
        assertThat(Quarantine.in(state).payload(k).orElseThrow()).hasContent("#!/bin/sh\nevil");
    }

    @Test
    void whatCannotBeKeptIsTakenOutAllTheSameAndSaidLost() throws IOException {
        // The state dir is a file: nothing can be kept beneath it (as with a disk the run filled).
        Files.writeString(state.dir(), "not a directory");
        ControlFileAudit.Baseline b = audit(Retention.DEFAULT).before();
        Path hook = Files.writeString(hooks.resolve("pre-commit"), "#!/bin/sh\nevil\n");
        ControlFileAudit.Report r = b.after(ControlFilesAction.RESTORE, "run2");
        assertThat(r.changed()).isTrue();
        assertThat(hook).as("a planted hook never stays for want of room to keep it").doesNotExist();
        assertThat(r.diagnostics().get(0).message()).contains("removed again", "could not be kept in the quarantine",
                "lost");
        assertThat(r.diagnostics().get(0).details()).containsEntry("restored", "true").doesNotContainKey("quarantine");
    }

    @Test
    void anUnreadableDirectoryWithAFifoIsKeptAsFarAsItHoldsAnything() throws Exception {
        ControlFileAudit.Baseline b = audit(Retention.DEFAULT).before();
        Path husky = Files.createDirectories(ws.resolve(".husky/deep"));
        Path script = Files.writeString(husky.resolve("pre-commit"), "evil\n");
        Files.setAttribute(script, "unix:mode", 0);
        Process p = new ProcessBuilder("mkfifo", husky.resolve("fifo").toString()).start();
        assertThat(p.waitFor()).isZero();
        Files.setAttribute(husky, "unix:mode", 0);
        ControlFileAudit.Report r = b.after(ControlFilesAction.RESTORE, "run5");
        assertThat(ws.resolve(".husky")).doesNotExist();
        assertThat(r.diagnostics().get(0).details()).containsEntry("quarantine", "run5/1");
        Kept k = Quarantine.in(state).read("run5").orElseThrow().entries().get(0);
        Path kept = Quarantine.in(state).payload(k).orElseThrow();
        assertThat(((Integer) Files.getAttribute(kept.resolve("deep"), "unix:mode")) & 07777).isZero();
        Files.setAttribute(kept.resolve("deep"), "unix:mode", 0700);
        assertThat(kept.resolve("deep/pre-commit")).hasContent("evil");
        assertThat(kept.resolve("deep/fifo")).doesNotExist();
        assertThat(Quarantine.in(state).drop("run5")).isTrue();
    }

    @Test
    void aRunThatKeepsSomethingPrunesOldRunsAndSaysSo() throws IOException {
        Quarantine q = Quarantine.in(state);
        Path old = Files.writeString(ws.resolve("scratch"), "x");
        Quarantine.Box box = q.box("old");
        box.record(box.keep(old), "MGS2002", "changed", "");
        Path m = q.root().resolve("old/manifest");
        String text = Files.readString(m);
        Files.writeString(m, Manifest.header("old", Instant.now().minus(Duration.ofDays(40)))
                + text.substring(text.indexOf('\n') + 1));

        ControlFileAudit.Baseline b = audit(Retention.DEFAULT).before();
        Files.writeString(ws.resolve(".envrc"), "export A=1\n");
        ControlFileAudit.Report r = b.after(ControlFilesAction.RESTORE, "run3");
        assertThat(r.notes()).anySatisfy(n -> assertThat(n).contains("dropped run old", "older than 30 days"));
        assertThat(q.runs()).extracting(Manifest.Run::runId).containsExactly("run3");
    }

    @Test
    void aHarmlessConfigChangeIsKeptAndFailsNothing() throws IOException {
        ControlFileAudit.Baseline b = audit(Retention.DEFAULT).before();
        Path config = ws.resolve(".git/config");
        Files.writeString(config, "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = /x\n");
        ControlFileAudit.Report r = b.after(ControlFilesAction.RESTORE, "run4");
        assertThat(r.changed()).isFalse();
        assertThat(r.diagnostics()).isEmpty();
        assertThat(config).hasContent("[core]\n\tbare = false\n[remote \"origin\"]\n\turl = /x");
        assertThat(Quarantine.in(state).runs()).isEmpty();
    }
}
