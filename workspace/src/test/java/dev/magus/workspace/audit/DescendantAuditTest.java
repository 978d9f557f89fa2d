package dev.magus.workspace.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.audit.DescendantWrite.Verb;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The descendant audit on a real filesystem (the pure-Java reader; the orchestrator's tests
 * run it with real confined children and the native reader): what a write in a descendant
 * tree looks like, each way a tool writes, and what must not be reported.
 */
class DescendantAuditTest {
    /** The audits' walks kept from run to run; a fresh one is a new process. */
    private AuditCaches caches = new AuditCaches();
    @TempDir
    Path tmp;
    Path ws;

    @BeforeEach
    void tree() throws IOException, InterruptedException {
        ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        write("README.md", "root\n");
        write("api/README.md", "api\n");
        write("api/docs/a.md", "a\n");
        write("api/docs/b.md", "b\n");
        write("api/sub/lib/x.md", "x\n");
        write("web/index.md", "web\n");
        // At rest: nothing changed just before the run (see TreeDiff.FINE_SLACK_NANOS).
        Thread.sleep(300);
    }

    private Path write(String rel, String text) throws IOException {
        Path p = ws.resolve(rel);
        Files.createDirectories(p.getParent());
        return Files.writeString(p, text);
    }

    private DescendantAudit audit(String... descendants) {
        return DescendantAudit.of(ws, List.of(descendants).stream().map(Path::of).toList(), Readers.java(), caches);
    }

    private static Map<String, Verb> writes(DescendantAudit.Report r, Path ws) {
        return r.writes().stream().collect(Collectors.toMap(w -> ws.relativize(w.path()).toString(), DescendantWrite::verb,
                (a, b) -> a, java.util.TreeMap::new));
    }

    @Test
    void aFileCreatedInADescendantIsMGS3001NamingIt() throws IOException {
        DescendantAudit.Baseline b = audit("api", "web").before();
        write("api/docs/new.md", "new\n");
        DescendantAudit.Report r = b.after();

        assertThat(writes(r, ws)).containsExactly(Map.entry("api/docs/new.md", Verb.CREATED));
        assertThat(r.diagnostics()).hasSize(1);
        Diagnostic d = r.diagnostics().get(0);
        assertThat(d.code()).isEqualTo(Code.MGS3001);
        assertThat(d.layer()).isEqualTo(Layer.AUDIT);
        assertThat(d.subject()).isEqualTo(ws.resolve("api").toString());
        assertThat(d.details()).containsEntry("project", "api").containsEntry("count", "1")
                .containsEntry("files", "api/docs/new.md (created)");
        assertThat(d.message()).contains("descendant project api", "api/docs/new.md (created)");
    }

    @Test
    void writesOutsideEveryDescendantAreNotReported() throws IOException {
        DescendantAudit.Baseline b = audit("api").before();
        write("README.md", "changed\n");
        write("web/index.md", "changed\n");
        write("other/new.md", "new\n");
        assertThat(b.after().wrote()).isFalse();
    }

    @Test
    void anInPlaceEditIsChangedEvenWithItsMtimePutBack() throws IOException {
        Path a = ws.resolve("api/docs/a.md");
        FileTime mtime = Files.getLastModifiedTime(a);
        DescendantAudit.Baseline b = audit("api").before();
        Files.writeString(a, "A\n");
        Files.setLastModifiedTime(a, mtime);
        assertThat(writes(b.after(), ws)).containsExactly(Map.entry("api/docs/a.md", Verb.CHANGED));
    }

    @Test
    void aWriteBesideAndRenameIsChanged() throws IOException {
        DescendantAudit.Baseline b = audit("api").before();
        Path temp = write("api/docs/.a.md.tmp", "formatted\n");
        Files.move(temp, ws.resolve("api/docs/a.md"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        assertThat(writes(b.after(), ws)).containsExactly(Map.entry("api/docs/a.md", Verb.CHANGED));
    }

    @Test
    void removedFilesAndDirectoriesAreNamedWithWhatWasBeneath() throws IOException {
        DescendantAudit.Baseline b = audit("api").before();
        Files.delete(ws.resolve("api/README.md"));
        Files.delete(ws.resolve("api/docs/a.md"));
        Files.delete(ws.resolve("api/docs/b.md"));
        Files.delete(ws.resolve("api/docs"));
        assertThat(writes(b.after(), ws)).containsExactly(Map.entry("api/README.md", Verb.REMOVED),
                Map.entry("api/docs", Verb.REMOVED), Map.entry("api/docs/a.md", Verb.REMOVED),
                Map.entry("api/docs/b.md", Verb.REMOVED));
    }

    @Test
    void aNestedDescendantIsItsOwnProject() throws IOException {
        DescendantAudit.Baseline b = audit("api", "api/sub").before();
        write("api/sub/lib/y.md", "y\n");
        write("api/docs/c.md", "c\n");
        DescendantAudit.Report r = b.after();
        assertThat(r.diagnostics()).extracting(d -> d.details().get("project")).containsExactly("api", "api/sub");
        assertThat(r.diagnostics().get(1).details()).containsEntry("files", "api/sub/lib/y.md (created)");
    }

    @Test
    void aDirectoryMovedInOverAnotherHasEveryNameReported() throws IOException {
        write("elsewhere/a.md", "evil\n");
        DescendantAudit.Baseline b = audit("api").before();
        Files.move(ws.resolve("api/docs"), ws.resolve("docs.old"));
        // Its files keep their old ctimes; the directory's inode says it is another one.
        Files.move(ws.resolve("elsewhere"), ws.resolve("api/docs"));
        assertThat(writes(b.after(), ws)).containsExactly(Map.entry("api/docs", Verb.CHANGED),
                Map.entry("api/docs/a.md", Verb.CHANGED), Map.entry("api/docs/b.md", Verb.REMOVED));
    }

    @Test
    void manyWritesNameTheFirstTenAndCountTheRest() throws IOException {
        DescendantAudit.Baseline b = audit("api").before();
        for (int i = 0; i < 25; i++) {
            write("api/docs/gen/f" + (char) ('a' + i) + ".md", "x\n");
        }
        Diagnostic d = b.after().diagnostics().get(0);
        assertThat(d.details()).containsEntry("count", "26");
        assertThat(d.details().get("files").split(", ")).hasSize(DescendantAudit.SHOWN);
        assertThat(d.message()).contains("api/docs/gen (created)", "and 16 more");
    }

    @Test
    void aDescendantCreatedByTheRunIsReported() throws IOException {
        DescendantAudit.Baseline b = audit("api", "tools").before();
        write("tools/gen.md", "x\n");
        assertThat(writes(b.after(), ws)).containsExactly(Map.entry("tools", Verb.CREATED),
                Map.entry("tools/gen.md", Verb.CREATED));
    }

    @Test
    void theNextProcessStartsFromTheStateDirAndDoesNotBlameTheRunForWhatHappenedBetween() throws Exception {
        StateDir state = new StateDir(Files.createDirectories(tmp.resolve("state")));
        WalkCacheTest.Counting counting = new WalkCacheTest.Counting();
        // Older than the slack, as a tree at rest is: only what changes later is listed again.
        Thread.sleep(Scan.SLACK_NANOS / 1_000_000);
        DescendantAudit first = DescendantAudit.of(ws, List.of(Path.of("api")), counting, caches).keepingWalksIn(state);
        assertThat(first.before().after().wrote()).isFalse();
        assertThat(Files.list(state.dir().resolve("audit")).map(p -> p.getFileName().toString()))
                .anyMatch(n -> n.endsWith(".tree"));
        // Between two processes, with no magus running: a file created, one removed, one edited.
        write("api/docs/between.md", "x\n");
        Files.delete(ws.resolve("api/docs/b.md"));
        Thread.sleep(Scan.SLACK_NANOS / 1_000_000 + 300);
        Files.writeString(ws.resolve("api/README.md"), "edited before the run\n");
        Thread.sleep(300);
        caches = new AuditCaches();
        counting.lists.set(0);
        DescendantAudit.Baseline b = DescendantAudit.of(ws, List.of(Path.of("api")), counting, caches).keepingWalksIn(state)
                .before();
        assertThat(counting.lists.get()).as("only the directory whose times moved is listed again").isEqualTo(1);
        write("api/sub/lib/run.md", "by the run\n");
        assertThat(writes(b.after(), ws)).containsExactly(Map.entry("api/sub/lib/run.md", Verb.CREATED));
    }

    @Test
    void aGarbledStateFileMeansAFullWalkNeverNothingChanged() throws IOException {
        StateDir state = new StateDir(Files.createDirectories(tmp.resolve("state")));
        DescendantAudit.of(ws, List.of(Path.of("api")), Readers.java(), caches).keepingWalksIn(state).before().after();
        Path file = Files.list(state.dir().resolve("audit")).filter(p -> p.toString().endsWith(".tree")).findFirst()
                .orElseThrow();
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length / 2] ^= 1;
        Files.write(file, bytes);
        caches = new AuditCaches();
        WalkCacheTest.Counting counting = new WalkCacheTest.Counting();
        DescendantAudit.Baseline b = DescendantAudit.of(ws, List.of(Path.of("api")), counting, caches).keepingWalksIn(state)
                .before();
        assertThat(counting.lists.get()).as("every directory of api listed").isEqualTo(4);
        Files.delete(ws.resolve("api/docs/a.md"));
        assertThat(writes(b.after(), ws)).containsExactly(Map.entry("api/docs/a.md", Verb.REMOVED));
    }

    @Test
    void aTreeBigEnoughToBeStampedOnEveryCoreFindsTheSameWrites() throws IOException, InterruptedException {
        for (int d = 0; d < 50; d++) {
            for (int f = 0; f < 100; f++) {
                write("api/node_modules/p" + d + "/f" + f + ".js", "x\n");
            }
        }
        Thread.sleep(300);
        DescendantAudit.Baseline b = audit("api").before();
        assertThat(b.files()).isGreaterThanOrEqualTo(TreeDiff.PARALLEL_FILES);
        Files.writeString(ws.resolve("api/node_modules/p7/f3.js"), "y\n");
        Files.delete(ws.resolve("api/node_modules/p49/f99.js"));
        write("api/node_modules/p0/new.js", "z\n");
        assertThat(writes(b.after(), ws)).containsExactly(Map.entry("api/node_modules/p0/new.js", Verb.CREATED),
                Map.entry("api/node_modules/p49/f99.js", Verb.REMOVED), Map.entry("api/node_modules/p7/f3.js", Verb.CHANGED));
    }

    @Test
    void belowNamesTheProjectsStrictlyInside() {
        List<Path> all = List.of(Path.of("/w"), Path.of("/w/api"), Path.of("/w/api/sub"), Path.of("/w/web"),
                Path.of("/w/apiary"));
        assertThat(DescendantAudit.below(Path.of("/w/api"), all)).containsExactly(Path.of("/w/api/sub"));
        assertThat(DescendantAudit.below(Path.of("/w"), all)).containsExactly(Path.of("/w/api"),
                Path.of("/w/api/sub"), Path.of("/w/apiary"), Path.of("/w/web"));
    }

    @Test
    void noDescendantsNoWork() throws IOException {
        DescendantAudit.Baseline b = audit().before();
        write("api/docs/new.md", "x\n");
        assertThat(b.directories()).isZero();
        assertThat(b.after().wrote()).isFalse();
    }
}
