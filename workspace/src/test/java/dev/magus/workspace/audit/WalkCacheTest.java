package dev.magus.workspace.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.policy.control.ControlFiles;
import dev.magus.policy.path.DirectoryReader;
import dev.magus.workspace.StateDir;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The walk kept in the state dir between processes: the next process rescans from it instead
 * of walking, a control file created while no magus ran is still found (its directory's times
 * are compared with when the cached walk started, not with now), and a file that is not
 * exactly what was written means a full walk.
 */
class WalkCacheTest {
    /** The audits' walks kept from run to run; a fresh one is a new process. */
    private AuditCaches caches = new AuditCaches();
    static final int DIRS = 30;

    Path ws;
    Path state;

    /** The pure-Java reader, counting the directories it lists. */
    static final class Counting implements DirectoryReader {
        final DirectoryReader inner = Readers.java();
        final AtomicInteger lists = new AtomicInteger();

        @Override
        public Optional<Stamp> stat(String absolutePath) {
            return inner.stat(absolutePath);
        }

        @Override
        public Optional<Listing> list(String absolutePath) {
            lists.incrementAndGet();
            return inner.list(absolutePath);
        }
    }

    @BeforeEach
    void makeWorkspace() throws IOException, InterruptedException {
        ws = Files.createTempDirectory("magus-walkcache-test-").toRealPath();
        state = Files.createTempDirectory("magus-walkcache-state-").toRealPath();
        for (int i = 0; i < DIRS; i++) {
            Files.createDirectories(ws.resolve("src/d" + i));
        }
        Files.writeString(ws.resolve(".envrc"), "export A=1\n");
        // A workspace at rest: nothing in it changed within the slack.
        Thread.sleep(Scan.SLACK_NANOS / 1_000_000 + 200);
    }

    @AfterEach
    void remove() throws IOException {
        Restorer.removeEntry(ws);
        Restorer.removeEntry(state);
    }

    private ControlFileAudit audit(DirectoryReader reader) {
        return ControlFileAudit.of(ControlFiles.of(ws, List.of(ws.resolve(".git"))), reader, caches)
                .keepingWalksIn(new StateDir(state));
    }

    /** One run in a process of its own: the process's memory of walks is gone. */
    private ControlFileAudit.Baseline nextProcess(Counting reader) {
        caches = new AuditCaches();
        return audit(reader).before();
    }

    private Path cacheFile() throws IOException {
        try (Stream<Path> s = Files.list(state.resolve("audit"))) {
            return s.filter(p -> p.toString().endsWith(".walk")).findFirst().orElseThrow();
        }
    }

    @Test
    void aControlFileCreatedBetweenTwoProcessesRunsIsStillFound() throws IOException, InterruptedException {
        Counting first = new Counting();
        assertThat(nextProcess(first).after(ControlFilesAction.RESTORE).changed()).isFalse();
        assertThat(first.lists.get()).isGreaterThan(DIRS);
        assertThat(cacheFile()).isRegularFile();

        // While no magus runs, and long enough before the next run that the slack does not cover it.
        Path planted = ws.resolve("src/d7/.envrc");
        Files.writeString(planted, "export B=2\n");
        Thread.sleep(Scan.SLACK_NANOS / 1_000_000 + 200);

        Counting second = new Counting();
        ControlFileAudit.Baseline baseline = nextProcess(second);
        // Rescanned from the state dir's walk: only the changed directory was listed again.
        assertThat(second.lists.get()).isLessThan(DIRS / 2);
        assertThat(baseline.snapshot().entries()).containsKey(planted);

        // So a confined child that edits it is caught, and the edit undone.
        Files.writeString(planted, "export B=evil\n");
        ControlFileAudit.Report report = baseline.after(ControlFilesAction.RESTORE);
        assertThat(report.changes()).singleElement().isInstanceOfSatisfying(Change.Changed.class,
                c -> assertThat(c.path()).isEqualTo(planted));
        assertThat(Files.readString(planted)).isEqualTo("export B=2\n");
    }

    @Test
    void aRunThatChangedNothingLeavesTheKeptWalkAsItIsAndALaterChangeIsStillFound() throws Exception {
        assertThat(nextProcess(new Counting()).after(ControlFilesAction.RESTORE).changed()).isFalse();
        Path file = cacheFile();
        Object inode = Files.getAttribute(file, "unix:ino");
        byte[] kept = Files.readAllBytes(file);

        Counting quiet = new Counting();
        assertThat(nextProcess(quiet).after(ControlFilesAction.RESTORE).changed()).isFalse();
        assertThat(quiet.lists.get()).as("nothing listed: the walk still holds").isLessThan(5);
        assertThat(Files.getAttribute(cacheFile(), "unix:ino")).as("not rewritten").isEqualTo(inode);
        assertThat(Files.readAllBytes(cacheFile())).isEqualTo(kept);

        // The kept walk's start is older now, which only lists more: a name made later is found.
        Path planted = ws.resolve("src/d3/.envrc");
        Files.writeString(planted, "export C=3\n");
        Thread.sleep(Scan.SLACK_NANOS / 1_000_000 + 200);
        ControlFileAudit.Baseline baseline = nextProcess(new Counting());
        assertThat(baseline.snapshot().entries()).containsKey(planted);
        Files.writeString(planted, "export C=evil\n");
        assertThat(baseline.after(ControlFilesAction.RESTORE).changes()).singleElement()
                .satisfies(c -> assertThat(c.path()).isEqualTo(planted));
        assertThat(Files.readString(planted)).isEqualTo("export C=3\n");
        assertThat(Files.getAttribute(cacheFile(), "unix:ino")).as("rewritten after a run that listed").isNotEqualTo(inode);
    }

    /**
     * A server: every run after the first starts from the walk kept in memory. One that changed
     * nothing leaves the state dir's file as it is (rewriting it was ~0.3 ms per run);
     * a run that listed a directory rewrites it, and the next process starts from that.
     */
    @Test
    void runsOfOneProcessThatChangedNothingLeaveTheKeptWalkAsItIs() throws Exception {
        ControlFileAudit audit = audit(new Counting());
        assertThat(audit.before().after(ControlFilesAction.RESTORE).changed()).isFalse();
        Path file = cacheFile();
        Object inode = Files.getAttribute(file, "unix:ino");
        byte[] kept = Files.readAllBytes(file);
        for (int i = 0; i < 3; i++) {
            assertThat(audit.before().after(ControlFilesAction.RESTORE).changed()).isFalse();
            assertThat(Files.getAttribute(cacheFile(), "unix:ino")).as("not rewritten, run " + i).isEqualTo(inode);
        }
        assertThat(Files.readAllBytes(cacheFile())).isEqualTo(kept);

        // A run of the same process that edits a control file is caught and the file rewritten
        // (its walk listed the directory the restore wrote to).
        Path planted = ws.resolve("src/d5/.envrc");
        ControlFileAudit.Baseline baseline = audit.before();
        Files.writeString(planted, "export D=evil\n");
        assertThat(baseline.after(ControlFilesAction.RESTORE).changes()).singleElement()
                .satisfies(c -> assertThat(c.path()).isEqualTo(planted));
        assertThat(planted).doesNotExist();
        Object rewritten = Files.getAttribute(cacheFile(), "unix:ino");
        assertThat(rewritten).as("rewritten after a run that changed a control entry").isNotEqualTo(inode);

        // A name made while this process is idle, then a new process: found from the file.
        Thread.sleep(Scan.SLACK_NANOS / 1_000_000 + 200);
        Path later = ws.resolve("src/d9/.envrc");
        Files.writeString(later, "export E=5\n");
        Thread.sleep(Scan.SLACK_NANOS / 1_000_000 + 200);
        Counting next = new Counting();
        assertThat(nextProcess(next).snapshot().entries()).containsKey(later).doesNotContainKey(planted);
        assertThat(next.lists.get()).as("rescanned from the file").isLessThan(DIRS / 2);
    }

    @Test
    void aCorruptOrForeignCacheMeansAFullWalk() throws IOException, InterruptedException {
        nextProcess(new Counting()).after(ControlFilesAction.RESTORE);
        Path file = cacheFile();
        byte[] good = Files.readAllBytes(file);
        Path planted = ws.resolve("src/d3/.envrc");
        Files.writeString(planted, "export C=3\n");
        Thread.sleep(Scan.SLACK_NANOS / 1_000_000 + 200);

        List<byte[]> bad = List.of(new byte[0], java.util.Arrays.copyOf(good, good.length - 1), flipped(good, 40),
                flipped(good, good.length / 2), "not a walk".getBytes());
        for (byte[] b : bad) {
            Files.write(file, b);
            Counting reader = new Counting();
            ControlFileAudit.Baseline baseline = nextProcess(reader);
            assertThat(reader.lists.get()).isGreaterThan(DIRS);
            assertThat(baseline.snapshot().entries()).containsKey(planted);
        }
        // Another workspace's walk under this one's name is not this one's.
        Files.write(file, good);
        Path other = Files.createTempDirectory("magus-walkcache-other-").toRealPath();
        try {
            caches = new AuditCaches();
            ControlFileAudit.of(ControlFiles.of(other, List.of(other.resolve(".git"))), Readers.java(), caches)
                    .keepingWalksIn(new StateDir(state)).before().after(ControlFilesAction.RESTORE);
            try (Stream<Path> s = Files.list(state.resolve("audit"))) {
                for (Path p : s.toList()) {
                    if (!p.equals(file)) {
                        Files.copy(p, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
            Counting reader = new Counting();
            ControlFileAudit.Baseline baseline = nextProcess(reader);
            assertThat(reader.lists.get()).isGreaterThan(DIRS);
            assertThat(baseline.snapshot().entries()).containsKey(planted);
        } finally {
            Restorer.removeEntry(other);
        }
    }

    private static byte[] flipped(byte[] b, int at) {
        byte[] c = b.clone();
        c[at] ^= 0x5a;
        return c;
    }
}
