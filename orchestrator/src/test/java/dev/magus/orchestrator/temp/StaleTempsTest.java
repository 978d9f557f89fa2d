package dev.magus.orchestrator.temp;

import dev.magus.orchestrator.orphans.ProcessIdentity;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which private temp dirs a later magus removes: only those whose maker is certainly gone. */
class StaleTempsTest {
    @TempDir
    Path base;
    ProcessIdentity self;
    long uid;

    @BeforeEach
    void setUp() throws IOException {
        boolean linux = System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux");
        String why = "stale temp dir test skipped: needs Linux with our own /proc (os " + System.getProperty("os.name") + ")";
        if (!linux || ProcessIdentity.self().isEmpty()) {
            System.err.println(why);
        }
        Assumptions.assumeTrue(linux && ProcessIdentity.self().isPresent(), why);
        self = ProcessIdentity.self().orElseThrow();
        uid = ((Number) Files.getAttribute(base, "unix:uid")).longValue();
    }

    private Path dir(ProcessIdentity owner, String random) throws IOException {
        Path d = Files.createDirectories(base.resolve(Trees.PRIVATE_TEMP_PREFIX + owner.token() + "-" + random));
        Files.createDirectories(d.resolve("sub"));
        Files.writeString(d.resolve("sub/file"), "left behind");
        return d;
    }

    @Test
    void aRunsPrivateTempDirIsNamedAfterTheMagusThatMadeIt() throws IOException {
        Path temp = Trees.createPrivateTemp(base);
        assertThat(StaleTemps.owner(temp.getFileName().toString())).contains(self);
        assertThat(self.liveness()).isEqualTo(ProcessIdentity.Liveness.ALIVE);
        assertThat(StaleTemps.sweep(base, uid)).isEmpty();
        assertThat(temp).isDirectory();
    }

    @Test
    void theDirOfAMagusThatIsGoneIsRemovedAndNothingElse() throws IOException {
        long pidMax = Long.parseLong(Files.readString(Path.of("/proc/sys/kernel/pid_max")).strip());
        // A pid no process can have, and our own pid with another start: both certainly not their maker.
        Path neverRan = dir(new ProcessIdentity(self.pidNamespace(), pidMax + 1, 12345), "1");
        Path reused = dir(new ProcessIdentity(self.pidNamespace(), self.pid(), self.startTicks() + 1), "2");
        // Left alone: a live maker, another namespace's, a name without an identity, a link, a file.
        Path live = dir(self, "3");
        Path otherNamespace = dir(new ProcessIdentity(self.pidNamespace() + 1, pidMax + 1, 12345), "4");
        Path oldName = Files.createDirectories(base.resolve(Trees.PRIVATE_TEMP_PREFIX + "8812734"));
        Path target = Files.createDirectories(base.resolve("not-magus"));
        Files.writeString(target.resolve("keep"), "x");
        Path link = Files.createSymbolicLink(base.resolve(Trees.PRIVATE_TEMP_PREFIX
                + new ProcessIdentity(self.pidNamespace(), pidMax + 1, 1).token() + "-5"), target);
        Path file = Files.writeString(base.resolve(Trees.PRIVATE_TEMP_PREFIX
                + new ProcessIdentity(self.pidNamespace(), pidMax + 1, 2).token() + "-6"), "x");

        assertThat(StaleTemps.sweep(base, uid)).containsExactlyInAnyOrder(neverRan, reused);

        assertThat(neverRan).doesNotExist();
        assertThat(reused).doesNotExist();
        assertThat(live.resolve("sub/file")).exists();
        assertThat(otherNamespace.resolve("sub/file")).exists();
        assertThat(oldName).isDirectory();
        assertThat(link).isSymbolicLink();
        assertThat(target.resolve("keep")).exists();
        assertThat(file).isRegularFile();
    }

    @Test
    void aSweeperSweepsEachTempBaseOnceAndAFreshOneSweepsAgain() throws Exception {
        long pidMax = Long.parseLong(Files.readString(Path.of("/proc/sys/kernel/pid_max")).strip());
        Path first = dir(new ProcessIdentity(self.pidNamespace(), pidMax + 1, 12345), "8");
        StaleTemps sweeper = new StaleTemps();
        assertThat(sweeper.sweepOnce(base, uid, Runnable::run).get()).containsExactly(first);
        Path second = dir(new ProcessIdentity(self.pidNamespace(), pidMax + 1, 12346), "9");
        assertThat(sweeper.sweepOnce(base, uid, Runnable::run).get()).isEmpty();
        assertThat(second).isDirectory();
        assertThat(new StaleTemps().sweepOnce(base, uid, Runnable::run).get()).containsExactly(second);
        assertThat(second).doesNotExist();
    }

    @Test
    void anotherUsersDirIsLeftAlone() throws IOException {
        long pidMax = Long.parseLong(Files.readString(Path.of("/proc/sys/kernel/pid_max")).strip());
        Path stale = dir(new ProcessIdentity(self.pidNamespace(), pidMax + 1, 12345), "7");
        assertThat(StaleTemps.sweep(base, uid + 1)).isEmpty();
        assertThat(stale).isDirectory();
    }

    @Test
    void identitiesParseOnlyFromTheirOwnShape() {
        assertThat(ProcessIdentity.parse(self.token())).contains(self);
        assertThat(StaleTemps.owner("magus-run-1-2-3-99")).contains(new ProcessIdentity(1, 2, 3));
        assertThat(StaleTemps.owner("magus-run-1-2-3")).isEmpty();
        assertThat(StaleTemps.owner("magus-run-1-2-3-4-5")).isEmpty();
        assertThat(StaleTemps.owner("magus-run-1-+2-3-4")).isEmpty();
        assertThat(StaleTemps.owner("magus-run-a-2-3-4")).isEmpty();
        assertThat(StaleTemps.owner("other-1-2-3-4")).isEmpty();
    }
}
