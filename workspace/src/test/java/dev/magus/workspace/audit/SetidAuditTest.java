package dev.magus.workspace.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Layer;
import dev.magus.policy.control.ControlFiles;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.quarantine.Kept;
import dev.magus.workspace.quarantine.Quarantine;
import dev.magus.workspace.quarantine.Retention;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A set-user-ID or set-group-ID regular file the run left in the workspace is reported
 * (MGS2002, layer audit), kept in the quarantine, and has its two bits cleared.
 */
class SetidAuditTest {
    /** The audits' walks kept from run to run, as one process keeps them. */
    private final AuditCaches caches = new AuditCaches();
    Path dir;
    Path ws;
    StateDir state;

    @BeforeEach
    void make() throws IOException {
        dir = Files.createTempDirectory("magus-setid-audit-").toRealPath();
        ws = Files.createDirectories(dir.resolve("ws"));
        Files.createDirectories(ws.resolve("out"));
        Files.writeString(ws.resolve("out/old"), "x");
        state = new StateDir(dir.resolve("state"));
    }

    @AfterEach
    void remove() throws IOException {
        Restorer.removeEntry(dir);
    }

    private ControlFileAudit audit() {
        return ControlFileAudit.of(ControlFiles.of(ws, List.of()), Readers.java(), caches).quarantiningIn(state, Retention.DEFAULT);
    }

    private static int mode(Path p) throws IOException {
        return (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
    }

    private static Path file(Path p, int mode) throws IOException {
        Files.createDirectories(p.getParent());
        Files.writeString(p, "#!/bin/sh\n");
        Files.setAttribute(p, "unix:mode", mode, LinkOption.NOFOLLOW_LINKS);
        return p;
    }

    @Test
    void aSetIdFileTheRunLeftIsReportedKeptAndClearedAndAnOrdinaryOneIsNot() throws IOException {
        ControlFileAudit.Baseline b = audit().before();
        Path suid = file(ws.resolve("out/sh"), 04755);
        Path sgid = file(ws.resolve("new/deeper/tool"), 02755);
        Path plain = file(ws.resolve("out/plain"), 0755);
        ControlFileAudit.Report r = b.after(ControlFilesAction.RESTORE, "run1");
        assertThat(r.changed()).isTrue();
        assertThat(r.diagnostics()).extracting(d -> d.subject()).containsExactlyInAnyOrder(sgid.toString(), suid.toString());
        assertThat(r.diagnostics()).allSatisfy(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2002);
            assertThat(d.layer()).isEqualTo(Layer.AUDIT);
            assertThat(d.message()).contains("set-user-ID or set-group-ID", "cleared", "magus quarantine restore run1");
        });
        assertThat(mode(suid) & 07777).isEqualTo(0755);
        assertThat(mode(sgid) & 07777).isEqualTo(0755);
        assertThat(mode(plain) & 07777).isEqualTo(0755);
        List<Kept> kept = Quarantine.in(state).read("run1").orElseThrow().entries();
        assertThat(kept).hasSize(2);
        assertThat(Quarantine.in(state).payload(kept.get(0)).orElseThrow()).hasContent("#!/bin/sh");
    }

    @Test
    void underReportTheFileIsLeftAndTheRunStillFails() throws IOException {
        ControlFileAudit.Baseline b = audit().before();
        Path suid = file(ws.resolve("out/sh"), 04755);
        ControlFileAudit.Report r = b.after(ControlFilesAction.REPORT, "run2");
        assertThat(r.changed()).isTrue();
        assertThat(r.diagnostics()).singleElement().satisfies(d -> assertThat(d.message()).contains("left as it is"));
        assertThat(mode(suid) & 06000).isEqualTo(04000);
    }

    @Test
    void aRunThatLeavesNoSetIdFileReportsNothing() throws IOException {
        ControlFileAudit.Baseline b = audit().before();
        file(ws.resolve("out/plain"), 0755);
        file(ws.resolve("out/sticky"), 01644);
        ControlFileAudit.Report r = b.after(ControlFilesAction.RESTORE, "run3");
        assertThat(r.changed()).isFalse();
        assertThat(r.diagnostics()).isEmpty();
    }
}
