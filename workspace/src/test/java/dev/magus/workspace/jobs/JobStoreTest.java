package dev.magus.workspace.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.Code;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import dev.magus.policy.lease.WriteGlob;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store on real SQLite files in a temp dir. */
class JobStoreTest {
    @TempDir
    Path dir;

    private static List<WriteGlob> globs(String... g) {
        return java.util.Arrays.stream(g).map(s -> WriteGlob.parse(s, "test")).toList();
    }

    private static String pragma(Path db, String pragma) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("PRAGMA " + pragma)) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Test
    void aMissingStoreIsCreatedPrivatelyMigratedAndInWalMode() throws Exception {
        Path db = dir.resolve("state/magus/jobs.db");
        try (JobStore store = JobStore.open(db)) {
            assertThat(store.schemaVersion()).isEqualTo(Schema.LATEST);
            assertThat(store.list()).isEmpty();
        }
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(db.getParent()))).isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(db))).isEqualTo("rw-------");
        assertThat(pragma(db, "journal_mode")).isEqualTo("wal");
        assertThat(pragma(db, "user_version")).isEqualTo(Integer.toString(Schema.LATEST));
    }

    @Test
    void anEmptyFileIsMigratedFromVersionZero() throws Exception {
        Path db = Files.createFile(dir.resolve("jobs.db"));
        assertThat(Files.size(db)).isZero();
        try (JobStore store = JobStore.open(db)) {
            assertThat(store.schemaVersion()).isEqualTo(Schema.LATEST);
            Job j = store.add(Optional.empty(), globs("src/**"));
            assertThat(store.find(j.id())).contains(j);
        }
    }

    @Test
    void rowsSurviveReopeningWithTheirTrail() {
        Path db = dir.resolve("jobs.db");
        Clock clock = Clock.fixed(Instant.parse("2026-01-02T03:04:05Z"), ZoneOffset.UTC);
        Job root;
        Job child;
        try (JobStore store = JobStore.open(db, 1000, clock)) {
            root = store.add(Optional.empty(), List.of());
            child = store.add(Optional.of(root.id()), globs("src/**", "docs/*.md"));
            store.record(child.id(), new TrailEvent.SandboxDenial(dir.resolve("ws/README.md"), Operation.WRITE, Code.MGS2002,
                    Layer.KERNEL));
            store.end(root.id(), true);
        }
        try (JobStore store = JobStore.open(db)) {
            assertThat(store.list()).extracting(Job::id).containsExactly(root.id(), child.id());
            Job c = store.find(child.id()).orElseThrow();
            assertThat(c).isEqualTo(child);
            assertThat(c.parent()).contains(root.id());
            assertThat(c.writePaths()).extracting(WriteGlob::text).containsExactly("src/**", "docs/*.md");
            assertThat(c.live()).isTrue();
            assertThat(c.parent()).isPresent();
            assertThat(store.find(root.id()).orElseThrow().state()).isEqualTo(new JobState.Failed(clock.instant()));
            assertThat(store.trail(child.id())).extracting(TrailEntry::event).containsExactly(new TrailEvent.Created(),
                    new TrailEvent.SandboxDenial(dir.resolve("ws/README.md"), Operation.WRITE, Code.MGS2002, Layer.KERNEL));
            assertThat(store.trail(root.id())).extracting(TrailEntry::event)
                    .containsExactly(new TrailEvent.Created(), new TrailEvent.Ended("failed"));
        }
    }

    @Test
    void endingTwiceAnUnknownJobAndADeadParentAreRefused() {
        try (JobStore store = JobStore.open(dir.resolve("jobs.db"))) {
            Job j = store.add(Optional.empty(), List.of());
            store.end(j.id(), false);
            assertThatThrownBy(() -> store.end(j.id(), false)).isInstanceOfSatisfying(SandboxException.class,
                    e -> assertThat(e.diagnostic().message()).contains("already ended (done)"));
            assertThatThrownBy(() -> store.end(new JobId(99), false)).isInstanceOfSatisfying(SandboxException.class,
                    e -> assertThat(e.diagnostic().message()).contains("no job 99"));
            assertThatThrownBy(() -> store.add(Optional.of(j.id()), globs("x"))).isInstanceOfSatisfying(SandboxException.class,
                    e -> assertThat(e.diagnostic().message()).contains("a parent must be live"));
            assertThatThrownBy(() -> store.add(Optional.of(new JobId(42)), globs("x"))).isInstanceOf(SandboxException.class);
            assertThat(store.list()).hasSize(1);
        }
    }

    @Test
    void twoWritersOnTwoConnectionsBothLand() throws Exception {
        Path db = dir.resolve("jobs.db");
        JobStore.open(db).close();
        int each = 40;
        Runnable writer = () -> {
            try (JobStore store = JobStore.open(db)) {
                for (int i = 0; i < each; i++) {
                    Job j = store.add(Optional.empty(), globs("w" + i + "/**"));
                    store.record(j.id(), new TrailEvent.LeaseAcquired(dir));
                }
            }
        };
        Thread a = new Thread(writer);
        Thread b = new Thread(writer);
        a.start();
        b.start();
        a.join();
        b.join();
        try (JobStore store = JobStore.open(db)) {
            List<Job> all = store.list();
            assertThat(all).hasSize(2 * each);
            assertThat(all).extracting(Job::id).doesNotHaveDuplicates();
            assertThat(all).allSatisfy(j -> assertThat(store.trail(j.id())).hasSize(2));
        }
    }

    @Test
    void twoProcessesAndThisOneWriteConcurrently() throws Exception {
        Path db = dir.resolve("jobs.db");
        JobStore.open(db).close();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<Process> procs = new java.util.ArrayList<>();
        for (int p = 0; p < 2; p++) {
            procs.add(new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                    "-Djava.io.tmpdir=" + Files.createDirectories(dir.resolve("tmp" + p)), AddJobs.class.getName(), db.toString(), "30")
                    .redirectErrorStream(true).start());
        }
        try (JobStore store = JobStore.open(db)) {
            for (int i = 0; i < 30; i++) {
                store.add(Optional.empty(), globs("here/**"));
            }
        }
        for (Process p : procs) {
            String out = new String(p.getInputStream().readAllBytes());
            assertThat(p.waitFor()).as(out).isZero();
        }
        try (JobStore store = JobStore.open(db)) {
            assertThat(store.list()).hasSize(90);
        }
    }

    /** A second process's writer, for {@link #twoProcessesAndThisOneWriteConcurrently}. */
    public static final class AddJobs {
        public static void main(String[] args) {
            try (JobStore store = JobStore.open(Path.of(args[0]))) {
                for (int i = 0; i < Integer.parseInt(args[1]); i++) {
                    store.add(Optional.empty(), List.of(WriteGlob.parse("proc/**", "test")));
                }
            }
        }
    }

    @Test
    void aFileThatIsNotADatabaseIsAClearDiagnosticNamingIt() throws IOException {
        Path db = Files.writeString(dir.resolve("jobs.db"), "this is not a database\n".repeat(200));
        assertThatThrownBy(() -> JobStore.open(db)).isInstanceOfSatisfying(SandboxException.class, e -> {
            assertThat(e.code()).isEqualTo(Code.MGS2004);
            assertThat(e.diagnostic().message()).contains(db.toString()).contains("not a readable job store");
            assertThat(e.diagnostic().source()).isEqualTo(db.toString());
        });
        assertThat(Files.readString(db)).startsWith("this is not a database").as("left as it was");
    }

    @Test
    void aTruncatedStoreIsAClearDiagnostic() throws Exception {
        Path db = dir.resolve("jobs.db");
        try (JobStore store = JobStore.open(db)) {
            for (int i = 0; i < 300; i++) {
                store.add(Optional.empty(), globs("some/rather/long/path/number/" + i + "/**"));
            }
        }
        long size = Files.size(db);
        assertThat(size).isGreaterThan(8192);
        try (RandomAccessFile f = new RandomAccessFile(db.toFile(), "rw")) {
            f.setLength(size / 3);
        }
        assertThatThrownBy(() -> {
            try (JobStore store = JobStore.open(db)) {
                store.list();
            }
        }).isInstanceOfSatisfying(SandboxException.class, e -> {
            assertThat(e.code()).isEqualTo(Code.MGS2004);
            assertThat(e.diagnostic().message()).contains(db.toString()).contains("not a readable job store");
        });
    }

    @Test
    void aStoreLockedPastTheTimeoutIsAClearDiagnostic() throws Exception {
        Path db = dir.resolve("jobs.db");
        JobStore.open(db).close();
        try (Connection holder = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = holder.createStatement()) {
            s.execute("BEGIN IMMEDIATE");
            s.execute("INSERT INTO jobs (state, created_ms) VALUES ('live', 0)");
            try (JobStore store = JobStore.open(db, 200, Clock.systemUTC())) {
                assertThat(store.list()).as("WAL: readers are not blocked by the writer").isEmpty();
                assertThatThrownBy(() -> store.add(Optional.empty(), List.of())).isInstanceOfSatisfying(SandboxException.class, e -> {
                    assertThat(e.code()).isEqualTo(Code.MGS2004);
                    assertThat(e.diagnostic().message()).contains(db.toString()).contains("locked by another process")
                            .contains("200 ms");
                });
            }
            s.execute("ROLLBACK");
        }
    }

    @Test
    void aStoreFromANewerMagusIsRefusedAndLeftAlone() throws Exception {
        Path db = dir.resolve("jobs.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            s.execute("PRAGMA user_version = 99");
        }
        assertThatThrownBy(() -> JobStore.open(db)).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.diagnostic().message()).contains(db.toString()).contains("schema version 99")
                        .contains("newer than this magus knows (" + Schema.LATEST + ")"));
        assertThat(pragma(db, "user_version")).isEqualTo("99");
    }

    @Test
    void aStoreThatCannotBeOpenedIsAClearDiagnostic() throws IOException {
        Path db = Files.createDirectories(dir.resolve("jobs.db"));
        assertThatThrownBy(() -> JobStore.open(db)).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.diagnostic().message()).contains(db.toString()).contains("cannot be opened"));
    }

    @Test
    void aBadGlobWrittenIntoTheStoreByHandIsRefusedOnRead() throws Exception {
        Path db = dir.resolve("jobs.db");
        JobId id;
        try (JobStore store = JobStore.open(db)) {
            id = store.add(Optional.empty(), globs("src/**")).id();
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            s.execute("UPDATE write_paths SET glob = '../../etc' WHERE job = " + id);
        }
        try (JobStore store = JobStore.open(db)) {
            assertThatThrownBy(() -> store.find(id)).isInstanceOfSatisfying(SandboxException.class, e -> {
                assertThat(e.code()).isEqualTo(Code.MGS2004);
                assertThat(e.diagnostic().source()).contains(db.toString()).contains("job " + id);
            });
        }
    }

    @Test
    void openExistingNeverCreatesAStore() {
        Path db = dir.resolve("nothing/jobs.db");
        assertThat(JobStore.openExisting(db)).isEmpty();
        assertThat(db.getParent()).doesNotExist();
    }

    @Test
    void aVersionOneStoreIsMigratedToTheLatestKeepingItsRows() throws Exception {
        Path db = dir.resolve("jobs.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            for (String sql : Schema.MIGRATIONS.get(0).statements()) {
                s.executeUpdate(sql);
            }
            s.executeUpdate("PRAGMA user_version = 1");
            s.executeUpdate("INSERT INTO jobs (id, parent, state, created_ms) VALUES (1, NULL, 'live', 5)");
            s.executeUpdate("INSERT INTO write_paths (job, position, glob) VALUES (1, 0, 'src/**')");
            s.executeUpdate("INSERT INTO trail (job, at_ms, kind) VALUES (1, 5, 'created')");
        }
        try (JobStore store = JobStore.open(db)) {
            assertThat(store.schemaVersion()).isEqualTo(Schema.LATEST).isGreaterThanOrEqualTo(2);
            assertThat(store.find(new JobId(1))).get().extracting(Job::writePaths).isEqualTo(globs("src/**"));
            store.record(new JobId(1), new TrailEvent.RunStarted("r1", dir, "make"));
            assertThat(store.trail(new JobId(1))).extracting(e -> e.event().kind()).containsExactly("created", "run_started");
        }
        assertThat(pragma(db, "user_version")).isEqualTo(Integer.toString(Schema.LATEST));
    }

    @Test
    void aRunsRowsComeBackAsWritten() {
        try (JobStore store = JobStore.open(dir.resolve("jobs.db"))) {
            Job root = store.add(Optional.empty(), globs("**"));
            Job child = store.add(Optional.of(root.id()), globs("src/**"));
            List<TrailEvent> rows = List.of(new TrailEvent.RunStarted("run-1", dir.resolve("ws"), "sh -c 'echo x > README'"),
                    new TrailEvent.SandboxDenial(dir.resolve("ws/README"), Operation.WRITE, Code.MGS2002, Layer.KERNEL,
                            Optional.of("run-1")),
                    new TrailEvent.SandboxDenial(dir.resolve("ws/LICENSE"), Operation.WRITE, Code.MGS2002, Layer.KERNEL,
                            Optional.of("run-1"), TrailEvent.SandboxDenial.sourceOf("inferred:stderr")),
                    new TrailEvent.RunEnded("run-1", 2, 7));
            rows.forEach(e -> store.record(child.id(), e));
            assertThat(store.trail(child.id()).stream().map(TrailEntry::event).toList()).containsExactly(
                    new TrailEvent.Created(), rows.get(0), rows.get(1), rows.get(2), rows.get(3));
            assertThat(((TrailEvent.SandboxDenial) rows.get(2)).source()).isEqualTo("inferred");
        }
    }

    @Test
    void aDelegatedJobGetsPartOfItsParentsGlobsNeverMore() {
        try (JobStore store = JobStore.open(dir.resolve("jobs.db"))) {
            Job root = store.add(Optional.empty(), globs("src/**", "docs/*.md"));
            Job ok = store.add(Optional.of(root.id()), globs("src/main/**", "docs/README.md"));
            assertThat(store.add(Optional.of(ok.id()), globs("src/main/java/**")).parent()).contains(ok.id());
            assertThatThrownBy(() -> store.add(Optional.of(root.id()), globs("src/**", "build/**")))
                    .isInstanceOfSatisfying(SandboxException.class, e -> {
                        assertThat(e.code()).isEqualTo(Code.MGS2004);
                        assertThat(e.diagnostic().message()).contains("'build/**'").contains("parent job " + root.id())
                                .contains("src/** docs/*.md");
                        assertThat(e.diagnostic().source()).isEqualTo("--write");
                    });
            assertThatThrownBy(() -> store.add(Optional.of(ok.id()), globs("src/**")))
                    .as("the grandparent's glob is not the parent's").isInstanceOf(SandboxException.class);
            assertThatThrownBy(() -> store.add(Optional.of(root.id()), List.of()))
                    .isInstanceOfSatisfying(SandboxException.class,
                            e -> assertThat(e.diagnostic().message()).contains("needs write paths"));
            assertThat(store.list()).hasSize(3);
        }
    }
}
