package dev.magus.workspace.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.Code;
import dev.magus.events.SandboxException;
import dev.magus.policy.fs.Access;
import dev.magus.policy.fs.AccessMode;
import dev.magus.policy.fs.Rule;
import dev.magus.policy.fs.Ruleset;
import dev.magus.policy.lease.CarriedLease;
import dev.magus.policy.lease.Narrowing;
import dev.magus.policy.lease.Tree;
import dev.magus.policy.lease.WriteGlob;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.jobs.Job;
import dev.magus.workspace.jobs.JobId;
import dev.magus.workspace.jobs.JobStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** From marker and store to the narrowing, failing closed. */
class LeaseLookupTest {
    @TempDir
    Path dir;
    StateDir state;
    Path cache;
    Path ws;
    Path temp;
    Ruleset core;
    LeaseLookup lookup;

    @BeforeEach
    void setUp() throws IOException {
        dir = dir.toRealPath();
        state = new StateDir(dir.resolve("state/magus"));
        cache = Files.createDirectories(dir.resolve("cache/magus"));
        ws = Files.createDirectories(dir.resolve("ws"));
        Files.createDirectories(ws.resolve("src"));
        temp = Files.createDirectories(dir.resolve("tmp/run"));
        core = Ruleset.of(List.of(new Rule(ws, AccessMode.RWX, "core:workspace"), new Rule(cache, AccessMode.RW, "core:cache"),
                new Rule(temp, AccessMode.RWX, "core:temp")));
        lookup = new LeaseLookup(state, cache);
    }

    private Narrowing narrowing() {
        return lookup.narrowing(core, ws, temp, Tree.real());
    }

    private Job child(String... globs) {
        try (JobStore store = JobStore.open(state.jobsDb())) {
            Job root = store.add(Optional.empty(), List.of());
            return store.add(Optional.of(root.id()), java.util.Arrays.stream(globs).map(g -> WriteGlob.parse(g, "t")).toList());
        }
    }

    @Test
    void aLiveDelegatedJobNarrows() {
        Job job = child("src/**");
        new LeaseMarkers(state, cache).acquire(ws, job.id());
        assertThat(narrowing()).isInstanceOfSatisfying(Narrowing.Narrowed.class, n -> {
            assertThat(n.job().id()).isEqualTo(job.id().toString());
            assertThat(n.ruleset().permits(ws.resolve("README"), Access.WRITE)).isFalse();
            assertThat(n.ruleset().permits(ws.resolve("src/x"), Access.WRITE)).isTrue();
        });
    }

    @Test
    void nothingChangesWithoutALeaseWithoutAStoreForAnUnknownJobARootJobOrAnEndedJob() {
        assertThat(narrowing()).isInstanceOf(Narrowing.Unchanged.class);
        assertThat(Files.exists(state.jobsDb())).as("a lookup never creates the store").isFalse();

        new LeaseMarkers(state, cache).acquire(ws, new JobId(5));
        assertThat(narrowing()).isInstanceOfSatisfying(Narrowing.Unchanged.class,
                u -> assertThat(u.why()).contains("no job store"));

        Job job = child("src/**");
        assertThat(job.id()).isNotEqualTo(new JobId(5));
        assertThat(narrowing()).isInstanceOfSatisfying(Narrowing.Unchanged.class,
                u -> assertThat(u.why()).contains("job 5").contains("does not have"));

        new LeaseMarkers(state, cache).release(ws);
        new LeaseMarkers(state, cache).acquire(ws, job.parent().orElseThrow());
        assertThat(narrowing()).isInstanceOfSatisfying(Narrowing.Unchanged.class, u -> assertThat(u.why()).contains("root job"));

        new LeaseMarkers(state, cache).release(ws);
        new LeaseMarkers(state, cache).acquire(ws, job.id());
        try (JobStore store = JobStore.open(state.jobsDb())) {
            store.end(job.id(), false);
        }
        assertThat(narrowing()).isInstanceOfSatisfying(Narrowing.Unchanged.class, u -> assertThat(u.why()).contains("ended"));
    }

    @Test
    void aCorruptStoreRefusesTheRunInsteadOfWideningIt() throws IOException {
        Job job = child("src/**");
        new LeaseMarkers(state, cache).acquire(ws, job.id());
        Files.writeString(state.jobsDb(), "garbage".repeat(1000));
        Files.deleteIfExists(state.dir().resolve("jobs.db-wal"));
        Files.deleteIfExists(state.dir().resolve("jobs.db-shm"));
        assertThat(narrowing()).isInstanceOfSatisfying(Narrowing.Refused.class, r -> {
            assertThat(r.diagnostic().code()).isEqualTo(Code.MGS2004);
            assertThat(r.diagnostic().message()).contains(state.jobsDb().toString());
        });
    }

    @Test
    void aLockedStoreThatNeedsMigratingRefusesTheRun() throws Exception {
        Files.createDirectories(state.dir());
        new LeaseMarkers(state, cache).acquire(ws, new JobId(1));
        try (Connection holder = DriverManager.getConnection("jdbc:sqlite:" + state.jobsDb());
             Statement s = holder.createStatement()) {
            s.execute("BEGIN EXCLUSIVE");
            s.execute("CREATE TABLE squat (x)");
            // Waits out the store's busy timeout, then refuses.
            Narrowing n = narrowing();
            assertThat(n).isInstanceOfSatisfying(Narrowing.Refused.class,
                    r -> assertThat(r.diagnostic().message()).contains(state.jobsDb().toString()).contains("locked"));
            s.execute("ROLLBACK");
        }
    }

    @Test
    void aGarbledMarkerRefusesTheRun() throws IOException {
        Job job = child("src/**");
        Marker m = new LeaseMarkers(state, cache).acquire(ws, job.id());
        Files.writeString(m.file(), "job=\n");
        assertThat(narrowing()).isInstanceOfSatisfying(Narrowing.Refused.class,
                r -> assertThat(r.diagnostic().message()).contains(m.file().toString()));
    }

    private Leasing leasing(CarriedLease... carried) {
        return lookup.leasing(core, ws, temp, Tree.real(), List.of(carried));
    }

    private CarriedLease carried(String job, String... globs) {
        return new CarriedLease(job, ws, java.util.Arrays.stream(globs).map(g -> WriteGlob.parse(g, "t")).toList());
    }

    @Test
    void aCarriedLeaseNarrowsWithoutAStateDirToRead() {
        Leasing l = leasing(carried("3", "src/**"));
        assertThat(Files.exists(state.dir())).isFalse();
        assertThat(l.applied()).singleElement().satisfies(n -> {
            assertThat(n.job().id()).isEqualTo("3");
            assertThat(n.job().store()).as("a carried lease writes no trail").isEmpty();
            assertThat(n.ruleset().permits(ws.resolve("README"), Access.WRITE)).isFalse();
            assertThat(n.permitsWrite(ws.resolve("src/x"))).isTrue();
        });
    }

    @Test
    void theCheckoutsOwnLeaseForTheSameJobIsAppliedOnceAndAnotherJobsIsRefused() {
        Job job = child("src/**");
        new LeaseMarkers(state, cache).acquire(ws, job.id());
        assertThat(leasing(carried(job.id().toString(), "src/**")).applied()).hasSize(1);
        assertThatThrownBy(() -> leasing(carried("99", "docs/**"))).isInstanceOfSatisfying(SandboxException.class, e -> {
            assertThat(e.code()).isEqualTo(Code.MGS2004);
            assertThat(e.diagnostic().message()).contains("job " + job.id()).contains("job 99").contains("MAGUS_LEASE");
        });
    }

    @Test
    void aCarriedLeaseAndTheCheckoutsOwnTogetherGrantNoMoreThanEither() throws IOException {
        Path other = Files.createDirectories(dir.resolve("other"));
        Files.createDirectories(other.resolve("lib"));
        Ruleset both = Ruleset.of(List.of(new Rule(ws, AccessMode.RWX, "core:workspace"), new Rule(other, AccessMode.RWX, "decl"),
                new Rule(cache, AccessMode.RW, "core:cache"), new Rule(temp, AccessMode.RWX, "core:temp")));
        Job job = child("src/**");
        new LeaseMarkers(state, cache).acquire(ws, job.id());
        CarriedLease onOther = new CarriedLease("8", other, List.of(WriteGlob.parse("lib/**", "t")));
        Leasing l = lookup.leasing(both, ws, temp, Tree.real(), List.of(onOther));
        assertThat(l.applied()).extracting(n -> n.job().id()).containsExactly("8", job.id().toString());
        Ruleset last = l.applied().get(1).ruleset();
        assertThat(last.permits(other.resolve("x"), Access.WRITE)).as("the carried lease still holds").isFalse();
        assertThat(last.permits(other.resolve("lib/x"), Access.WRITE)).isTrue();
        assertThat(last.permits(ws.resolve("README"), Access.WRITE)).isFalse();
        assertThat(last.permits(ws.resolve("src/x"), Access.WRITE)).isTrue();
    }

    @Test
    void aStateDirReachedThroughASymbolicLinkIsStillKeptOutOfEveryGrant() throws IOException {
        // XDG_STATE_HOME is a link into the workspace: unresolved, the state dir would not look
        // like it lies in the checkout, and a '**' lease would hand the run its own lease file.
        Path real = Files.createDirectories(ws.resolve(".state"));
        Path link = Files.createSymbolicLink(dir.resolve("statelink"), real);
        StateDir linked = new StateDir(link.resolve("magus"));
        try (JobStore store = JobStore.open(linked.jobsDb())) {
            Job root = store.add(Optional.empty(), List.of());
            Job job = store.add(Optional.of(root.id()), List.of(WriteGlob.parse("**", "t")));
            new LeaseMarkers(linked, cache).acquire(ws, job.id());
        }
        Narrowing n = new LeaseLookup(linked, cache).narrowing(core, ws, temp, Tree.real());
        assertThat(n).isInstanceOfSatisfying(Narrowing.Refused.class, r -> {
            assertThat(r.diagnostic().code()).isEqualTo(Code.MGS2004);
            assertThat(r.diagnostic().message()).contains("state dir").contains(real.resolve("magus").toString());
        });
    }

    /**
     * The lease's scope is resolved when a lease applies (a run without one resolves nothing),
     * and again on every lookup: a cache dir link re-pointed between two runs is followed anew.
     */
    @Test
    void theScopeIsResolvedAtEachLookupNeverKept() throws IOException {
        Path first = Files.createDirectories(ws.resolve(".cache1/magus"));
        Path second = Files.createDirectories(ws.resolve(".cache2/magus"));
        Path link = Files.createSymbolicLink(dir.resolve("cachelink2"), ws.resolve(".cache1"));
        Ruleset rules = Ruleset.of(List.of(new Rule(ws, AccessMode.RWX, "core:workspace"),
                new Rule(temp, AccessMode.RWX, "core:temp")));
        Job job = child("src/**");
        Path linkedCache = link.resolve("magus");
        new LeaseMarkers(state, linkedCache).acquire(ws, job.id());
        LeaseLookup lookup = new LeaseLookup(state, linkedCache);
        assertThat(lookup.narrowing(rules, ws, temp, Tree.real())).isInstanceOfSatisfying(Narrowing.Narrowed.class,
                x -> assertThat(x.scope().cacheDir()).isEqualTo(first));
        Files.delete(link);
        Files.createSymbolicLink(link, ws.resolve(".cache2"));
        assertThat(lookup.narrowing(rules, ws, temp, Tree.real())).isInstanceOfSatisfying(Narrowing.Narrowed.class, x -> {
            assertThat(x.scope().cacheDir()).isEqualTo(second);
            assertThat(x.permitsWrite(second.resolve("entry"))).isTrue();
            assertThat(x.permitsWrite(first.resolve("entry"))).isFalse();
        });
    }

    @Test
    void aCacheDirReachedThroughASymbolicLinkStaysWritableInsideTheCheckout() throws IOException {
        Path realCache = Files.createDirectories(ws.resolve(".cache/magus"));
        Path link = Files.createSymbolicLink(dir.resolve("cachelink"), ws.resolve(".cache"));
        Ruleset rules = Ruleset.of(List.of(new Rule(ws, AccessMode.RWX, "core:workspace"), new Rule(realCache, AccessMode.RW, "core:cache"),
                new Rule(temp, AccessMode.RWX, "core:temp")));
        Job job = child("src/**");
        Path linkedCache = link.resolve("magus");
        new LeaseMarkers(state, linkedCache).acquire(ws, job.id());
        Narrowing n = new LeaseLookup(state, linkedCache).narrowing(rules, ws, temp, Tree.real());
        assertThat(n).isInstanceOfSatisfying(Narrowing.Narrowed.class, x -> {
            assertThat(x.scope().cacheDir()).isEqualTo(realCache);
            assertThat(x.permitsWrite(realCache.resolve("entry"))).isTrue();
            assertThat(x.permitsWrite(ws.resolve(".cache/other"))).isFalse();
        });
    }
}
