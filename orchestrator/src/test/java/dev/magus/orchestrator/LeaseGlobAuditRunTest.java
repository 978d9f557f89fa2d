package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.RunEvent;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.jobs.Job;
import dev.magus.workspace.jobs.JobStore;
import dev.magus.workspace.jobs.TrailEntry;
import dev.magus.workspace.jobs.TrailEvent;
import dev.magus.workspace.quarantine.Kept;
import dev.magus.workspace.quarantine.Manifest;
import dev.magus.workspace.quarantine.Quarantine;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real confined worker under the lease glob {@code docs/*.md}: the kernel grants all of
 * {@code docs/}, and the lease audit holds the run to the glob afterwards.
 */
class LeaseGlobAuditRunTest {
    @TempDir
    Path root;
    TestHost t;
    StateDir state;
    Job child;
    Path docs;

    @BeforeEach
    void setUp() throws Exception {
        TestHost.assumeLandlock();
        t = new TestHost(root).mode("required");
        docs = Files.createDirectories(t.workspace.resolve("docs"));
        Files.writeString(docs.resolve("a.md"), "a\n");
        Files.writeString(docs.resolve("old.txt"), "old\0bytes\n");
        Files.setAttribute(docs.resolve("old.txt"), "unix:mode", 0640, LinkOption.NOFOLLOW_LINKS);
        LeasedWorkspace leased = LeasedWorkspace.of(t, "docs/*.md");
        state = leased.state();
        child = leased.job();
    }

    private record Outcome(Run run, List<RunEvent> events, int status) {
        List<Diagnostic> audit() {
            return events.stream().filter(e -> e instanceof RunEvent.Diag).map(e -> ((RunEvent.Diag) e).diagnostic())
                    .filter(d -> d.layer() == Layer.AUDIT).toList();
        }

        String text() {
            return TestHost.text(events);
        }
    }

    private Outcome run(String script) {
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c", script).build());
        List<RunEvent> events = TestHost.events(run);
        return new Outcome(run, events, run.result().block(TestHost.DEADLINE).status());
    }

    private List<TrailEvent> trail() {
        try (JobStore store = JobStore.open(state.jobsDb())) {
            return store.trail(child.id()).stream().map(TrailEntry::event).toList();
        }
    }

    private Quarantine quarantine() {
        return Quarantine.in(t.host().stateDir());
    }

    @Test
    void aRelativeWriteBesideTheGlobsByAChildThatExitsAtOnceIsReportedAsTheKernelsRefusal() {
        // The child is gone before its line is read, so where "top.txt" was is a guess: the
        // checkout (refused by the kernel) or docs/ (granted whole by the kernel, refused only by
        // the glob). Only the kernel's refusal can have printed the line.
        Outcome o = run("echo d > top.txt");
        assertThat(o.status()).as(o.text()).isNotZero();
        List<Diagnostic> kernel = o.events().stream().filter(e -> e instanceof RunEvent.Diag).map(e -> ((RunEvent.Diag) e).diagnostic())
                .filter(d -> d.layer() == Layer.KERNEL).toList();
        assertThat(kernel).as(o.text()).hasSize(1);
        assertThat(kernel.get(0).code()).isEqualTo(Code.MGS2002);
        assertThat(kernel.get(0).subject()).isEqualTo(t.workspace.resolve("top.txt").toString());
        assertThat(t.workspace.resolve("top.txt")).doesNotExist();
    }

    @Test
    void aRelativeWriteByAChildThatExitsAtOnceIsReportedEvenWhereEveryOtherDirectoryIsRefusedToo() throws java.io.IOException {
        // src/ and src/main are outside the lease's globs too: "top.txt" is refused wherever the
        // child was, so the refusal is the sandbox's, placed where the run started.
        Files.createDirectories(t.workspace.resolve("src/main"));
        Outcome o = run("echo d > top.txt");
        assertThat(o.status()).as(o.text()).isNotZero();
        List<Diagnostic> kernel = o.events().stream().filter(e -> e instanceof RunEvent.Diag).map(e -> ((RunEvent.Diag) e).diagnostic())
                .filter(d -> d.layer() == Layer.KERNEL).toList();
        assertThat(kernel).as(o.text()).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2002);
            assertThat(d.subject()).isEqualTo(t.workspace.resolve("top.txt").toString());
        });
    }

    @Test
    void aFileTheGlobDoesNotMatchIsReportedPutOnTheTrailAndQuarantinedWhileAMatchIsKept() throws Exception {
        Path c = docs.resolve("c.txt");
        Outcome o = run("echo c > docs/c.txt && echo b > docs/b.md && echo a2 >> docs/a.md && echo wrote");
        // The kernel let both through: docs/ is granted whole.
        assertThat(TestHost.lines(o.events(), RunEvent.Stream.STDOUT)).as(o.text()).contains("wrote");
        assertThat(o.status()).as(o.text()).isEqualTo(1);
        assertThat(o.audit()).as(o.text()).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2002);
            assertThat(d.subject()).isEqualTo(c.toString());
            assertThat(d.details()).containsEntry("job", child.id().toString()).containsEntry("write_paths", "docs/*.md")
                    .containsEntry("lease", t.workspace.toString()).containsEntry("change", "created")
                    .containsKey("quarantine");
            assertThat(d.message()).contains("docs/c.txt", "job " + child.id(), "magus quarantine restore " + o.run().id());
        });
        assertThat(c).doesNotExist();
        assertThat(docs.resolve("b.md")).hasContent("b");
        assertThat(docs.resolve("a.md")).hasContent("a\na2");

        assertThat(trail()).filteredOn(e -> e instanceof TrailEvent.SandboxDenial).singleElement()
                .isInstanceOfSatisfying(TrailEvent.SandboxDenial.class, d -> {
                    assertThat(d.path()).isEqualTo(c);
                    assertThat(d.code()).isEqualTo(Code.MGS2002);
                    assertThat(d.layer()).isEqualTo(Layer.AUDIT);
                    assertThat(d.run()).contains(o.run().id());
                });

        Manifest.Run kept = quarantine().read(o.run().id()).orElseThrow();
        assertThat(kept.entries()).singleElement().satisfies(k -> {
            assertThat(k.path()).isEqualTo(c);
            assertThat(k.payload()).isEqualTo(Kept.Payload.FILE);
            assertThat(quarantine().payload(k).orElseThrow()).hasContent("c");
        });
    }

    @Test
    void aFileThatExistedAndWasChangedIsRestoredByteExactAndTheRunsVersionKept() throws Exception {
        Path old = docs.resolve("old.txt");
        byte[] before = Files.readAllBytes(old);
        Outcome o = run("printf 'rewritten' > docs/old.txt && chmod 777 docs/old.txt");
        assertThat(o.status()).as(o.text()).isEqualTo(1);
        assertThat(o.audit()).as(o.text()).singleElement().satisfies(d -> {
            assertThat(d.subject()).isEqualTo(old.toString());
            assertThat(d.details()).containsEntry("change", "changed").containsEntry("restored", "true")
                    .containsEntry("job", child.id().toString());
        });
        assertThat(Files.readAllBytes(old)).isEqualTo(before);
        assertThat(Files.getAttribute(old, "unix:mode", LinkOption.NOFOLLOW_LINKS)).isEqualTo(0100640);
        Kept k = quarantine().read(o.run().id()).orElseThrow().entries().get(0);
        assertThat(quarantine().payload(k).orElseThrow()).hasContent("rewritten");
    }

    @Test
    void aRemovedFileADirectoryAndALinkOutsideTheGlobAreAllPutBack() throws Exception {
        Outcome o = run("rm docs/old.txt && mkdir -p docs/sub && echo x > docs/sub/x.md && ln -s /etc docs/out");
        assertThat(o.status()).as(o.text()).isEqualTo(1);
        assertThat(o.audit()).as(o.text()).extracting(Diagnostic::subject).containsExactlyInAnyOrder(
                docs.resolve("old.txt").toString(), docs.resolve("out").toString(), docs.resolve("sub").toString());
        assertThat(docs.resolve("old.txt")).hasBinaryContent("old\0bytes\n".getBytes());
        assertThat(docs.resolve("sub")).doesNotExist();
        assertThat(docs.resolve("out")).doesNotExist();
        assertThat(Files.exists(docs.resolve("out"), LinkOption.NOFOLLOW_LINKS)).isFalse();
    }

    @Test
    void aRunThatWritesOnlyWhatTheGlobMatchesKeepsItsStatus() {
        Outcome o = run("echo b > docs/b.md && exit 3");
        assertThat(o.audit()).as(o.text()).isEmpty();
        assertThat(o.status()).isEqualTo(3);
        assertThat(docs.resolve("b.md")).hasContent("b");
        assertThat(quarantine().root().resolve(o.run().id())).doesNotExist();
    }
}
