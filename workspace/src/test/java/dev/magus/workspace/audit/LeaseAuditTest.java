package dev.magus.workspace.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Diagnostic;
import dev.magus.policy.fs.AccessMode;
import dev.magus.policy.fs.Rule;
import dev.magus.policy.fs.Ruleset;
import dev.magus.policy.lease.LeaseJob;
import dev.magus.policy.lease.LeaseNarrowing;
import dev.magus.policy.lease.LeaseScope;
import dev.magus.policy.lease.Narrowing;
import dev.magus.policy.lease.Tree;
import dev.magus.policy.lease.WriteGlob;
import dev.magus.policy.path.DirectoryReader;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.quarantine.Quarantine;
import dev.magus.workspace.quarantine.Retention;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The lease audit on a real tree: what it takes out is exactly what the binding layer's write
 * check refuses within the directories the kernel granted whole.
 */
class LeaseAuditTest {
    Path dir;
    Path ws;
    StateDir state;

    @BeforeEach
    void make() throws IOException {
        dir = Files.createTempDirectory("magus-lease-audit-").toRealPath();
        ws = Files.createDirectories(dir.resolve("ws"));
        Files.createDirectories(ws.resolve("docs/keep"));
        Files.createDirectories(ws.resolve("src/main"));
        Files.writeString(ws.resolve("docs/keep/old.txt"), "old\n");
        state = new StateDir(dir.resolve("state"));
    }

    @AfterEach
    void remove() throws IOException {
        Restorer.removeEntry(dir);
    }

    private Narrowing.Narrowed lease(String... globs) {
        Ruleset granted = Ruleset.of(List.of(new Rule(ws, AccessMode.RWX, "core:workspace")));
        LeaseJob job = new LeaseJob("7", true, true, Arrays.stream(globs).map(g -> WriteGlob.parse(g, "test")).toList(),
                Optional.of(state.jobsDb()));
        LeaseScope scope = new LeaseScope(ws, dir.resolve("cache"), dir.resolve("temp"), state.dir());
        return (Narrowing.Narrowed) LeaseNarrowing.plan(granted, job, scope, Tree.real());
    }

    private LeaseAudit audit(Narrowing.Narrowed lease) {
        return LeaseAudit.of(List.of(lease), Readers.java()).quarantiningIn(state, Retention.DEFAULT);
    }

    @Test
    void onlyTheDirectoriesTheKernelGrantsWholeAreRecorded() {
        assertThat(audit(lease("docs/*.md", "src/**")).dirs()).containsExactly(ws.resolve("docs"));
        assertThat(audit(lease("src/**")).dirs()).isEmpty();
        assertThat(audit(lease("docs/*.md", "docs/keep/*.txt")).dirs()).containsExactly(ws.resolve("docs"));
    }

    @Test
    void aLeaseCarriedFromAParentRunIsLeftToThatRun() {
        Narrowing.Narrowed n = lease("docs/*.md");
        Narrowing.Narrowed carried = new Narrowing.Narrowed(new LeaseJob("7", true, true, n.job().writePaths()),
                n.scope(), n.granted(), n.ruleset(), n.globs());
        assertThat(LeaseAudit.of(List.of(carried), Readers.java()).dirs()).isEmpty();
    }

    @Test
    void whatTheRunLeavesIsWhatTheBindingCheckPermitsAndANeededDirectoryStays() throws IOException {
        Narrowing.Narrowed lease = lease("docs/**/*.md");
        LeaseAudit.Baseline b = audit(lease).before();
        List<Path> written = List.of(ws.resolve("docs/new/deeper/x.md"), ws.resolve("docs/new/y.txt"),
                ws.resolve("docs/c.txt"), ws.resolve("docs/b.md"), ws.resolve("docs/other/z.txt"),
                ws.resolve("docs/keep/old.txt"), ws.resolve("docs/keep/n.md"));
        for (Path p : written) {
            Files.createDirectories(p.getParent());
            Files.writeString(p, "run\n");
        }
        LeaseAudit.Report r = b.after("run1");
        assertThat(r.failing()).isTrue();
        for (Path p : written) {
            boolean kept = Files.exists(p) && Files.readString(p).equals("run\n");
            assertThat(kept).as(p.toString()).isEqualTo(lease.permitsWrite(p));
        }
        assertThat(ws.resolve("docs/keep/old.txt")).hasContent("old");
        // docs/new/ is on the way to a match: kept; docs/other/ is not, and goes whole.
        assertThat(ws.resolve("docs/new/deeper")).isDirectory();
        assertThat(ws.resolve("docs/other")).doesNotExist();
        assertThat(r.diagnostics()).extracting(Diagnostic::subject).containsExactlyInAnyOrder(
                ws.resolve("docs/new/y.txt").toString(), ws.resolve("docs/c.txt").toString(),
                ws.resolve("docs/other").toString(), ws.resolve("docs/keep/old.txt").toString());
        assertThat(r.diagnostics()).allSatisfy(d -> assertThat(d.details()).containsEntry("job", "7")
                .containsEntry("write_paths", "docs/**/*.md").containsKey("quarantine"));
        assertThat(Quarantine.in(state).read("run1").orElseThrow().entries()).hasSize(4);
    }

    @Test
    void onlyTheWiderDirectoriesAreListedOrStatted() throws IOException {
        for (int i = 0; i < 20; i++) {
            Files.writeString(Files.createDirectories(ws.resolve("src/main/p" + i)).resolve("F.java"), "class F {}\n");
        }
        List<String> asked = new java.util.ArrayList<>();
        DirectoryReader java = Readers.java();
        DirectoryReader counting = new DirectoryReader() {
            @Override
            public Optional<Stamp> stat(String absolutePath) {
                asked.add(absolutePath);
                return java.stat(absolutePath);
            }

            @Override
            public Optional<Listing> list(String absolutePath) {
                asked.add(absolutePath);
                return java.list(absolutePath);
            }
        };
        LeaseAudit.Baseline b = LeaseAudit.of(List.of(lease("docs/*.md", "src/**")), counting).before();
        Files.writeString(ws.resolve("docs/c.txt"), "run\n");
        assertThat(b.after("run1").diagnostics()).singleElement()
                .satisfies(d -> assertThat(d.subject()).isEqualTo(ws.resolve("docs/c.txt").toString()));
        assertThat(asked).isNotEmpty().allSatisfy(p -> assertThat(Path.of(p)).startsWithRaw(ws.resolve("docs")));
    }

    @Test
    void aFileOlderThanTheSlackIsStillComparedByItsStampAfterTheRun() throws Exception {
        Path old = ws.resolve("docs/keep/old.txt");
        Path same = Files.writeString(ws.resolve("docs/keep/same.txt"), "same\n");
        // Past the slack, so the after pass takes unchanged stamps as unchanged content.
        Thread.sleep(Scan.SLACK_NANOS / 1_000_000 + 200);
        LeaseAudit.Baseline b = audit(lease("docs/*.md")).before();
        Files.writeString(old, "new\n");
        LeaseAudit.Report r = b.after("run1");
        assertThat(r.diagnostics()).extracting(Diagnostic::subject).containsExactly(old.toString());
        assertThat(old).hasContent("old");
        assertThat(same).hasContent("same");
    }

    @Test
    void anUntouchedDirectoryIsNoFindingAndKeepsNothing() throws IOException {
        LeaseAudit.Report r = audit(lease("docs/*.md")).before().after("run1");
        assertThat(r.failing()).isFalse();
        assertThat(r.diagnostics()).isEmpty();
        assertThat(Quarantine.in(state).read("run1")).isEmpty();
    }
}
