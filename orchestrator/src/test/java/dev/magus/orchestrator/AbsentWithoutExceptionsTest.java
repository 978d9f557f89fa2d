package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.jna.NativeLibrary;
import dev.magus.events.Code;
import dev.magus.events.SandboxException;
import dev.magus.policy.path.DirectoryReader.Presence;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.audit.Readers;
import dev.magus.workspace.jobs.JobId;
import dev.magus.workspace.lease.LeaseMarkers;
import dev.magus.workspace.lease.Marker;
import dev.magus.workspace.spell.SpellCatalog;
import dev.magus.workspace.spell.SpellHost;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.FutureTask;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The spell catalog's listing of {@code .magus/spells} and the lease lookup's look at its
 * markers dir answer "nothing there" from the native lstat's ENOENT instead of the JDK's
 * {@code NoSuchFileException}, with the installed (getdents) reader this module's
 * class path has; every other outcome is still the JDK's, and the answers are the ones the
 * JDK alone gave: nothing, a refusal (MGS2004), or what is there.
 */
class AbsentWithoutExceptionsTest {
    private static final SpellHost HOST = new SpellHost(Map.of(), Path.of("/home/dev"), false);

    @TempDir
    Path tmp;
    Path ws;

    @BeforeEach
    void setUp() throws IOException {
        ws = Files.createDirectory(tmp.toRealPath().resolve("ws"));
        assertThat(Readers.installed().getClass().getSimpleName()).as("the native reader is installed here").isEqualTo("GetdentsReader");
    }

    private SpellCatalog catalog() {
        return SpellCatalog.load(ws, HOST, p -> {
            try {
                return Files.readString(p);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, getClass().getClassLoader(), new dev.magus.workspace.spell.SpellParses());
    }

    private static Presence presence(Path p) {
        return Readers.installed().presence(p.toString());
    }

    @Test
    void spellsDirAbsentIsNoSpellsWithoutTheJdk() {
        Path dir = ws.resolve(SpellCatalog.DIR);
        assertThat(presence(dir)).isEqualTo(Presence.NO_ENTRY);
        assertThat(Readers.noEntry(dir)).isTrue();
        assertThat(catalog().knows("mine")).isFalse();
        assertThat(catalog().names()).doesNotContain("mine");
    }

    @Test
    void spellsDirPresentOrADanglingLinkIsListedByTheJdkAsBefore() throws IOException {
        Path dir = ws.resolve(SpellCatalog.DIR);
        Files.createDirectories(dir.getParent());
        Files.createSymbolicLink(dir, ws.resolve("nowhere"));
        assertThat(presence(dir)).isEqualTo(Presence.FOUND);
        assertThat(catalog().knows("mine")).as("a dangling link: the JDK's NoSuchFileException, no spells").isFalse();
        Files.delete(dir);
        Files.createDirectory(dir);
        Files.writeString(dir.resolve("mine.yaml"), "sandbox: {}\n");
        assertThat(catalog().knows("mine")).isTrue();
    }

    @Test
    void aFileOnTheWayIsStillRefusedAsNotADirectory() throws IOException {
        Files.writeString(ws.resolve(".magus"), "not a dir");
        assertThat(presence(ws.resolve(SpellCatalog.DIR))).isEqualTo(Presence.NOT_A_DIRECTORY);
        assertThat(Readers.noEntry(ws.resolve(SpellCatalog.DIR))).isFalse();
        assertThatThrownBy(this::catalog).isInstanceOfSatisfying(SandboxException.class, e -> {
            assertThat(e.diagnostic().code()).isEqualTo(Code.MGS2004);
            assertThat(e.getMessage()).contains("is not a directory");
        });
    }

    @Test
    void permissionDeniedIsStillRefused() throws Exception {
        Object[] seen = asNobody(() -> {
            try {
                catalog();
                return new Object[] {presence(ws.resolve(SpellCatalog.DIR)), null};
            } catch (SandboxException e) {
                return new Object[] {presence(ws.resolve(SpellCatalog.DIR)), e};
            }
        });
        assertThat(seen[0]).isEqualTo(Presence.UNSURE);
        assertThat(seen[1]).isInstanceOfSatisfying(SandboxException.class, e -> {
            assertThat(e.diagnostic().code()).isEqualTo(Code.MGS2004);
            assertThat(e.getMessage()).contains("cannot list");
        });
    }

    @Test
    void leaseMarkersAbsentIsNoLeaseWithoutTheJdk() throws IOException {
        LeaseMarkers markers = new LeaseMarkers(new StateDir(tmp.toRealPath().resolve("state")), tmp.resolve("cache"));
        assertThat(presence(markers.dir())).isEqualTo(Presence.NO_ENTRY);
        assertThat(markers.covering(ws, Optional.empty())).isEmpty();
        Marker m = markers.acquire(ws, new JobId(3));
        assertThat(markers.covering(ws.resolve("sub"), Optional.empty())).contains(m);
    }

    @Test
    void leaseMarkersBehindAFileOrUnreadableAreStillRefused() throws Exception {
        Path file = Files.writeString(tmp.toRealPath().resolve("state-file"), "x");
        LeaseMarkers behindFile = new LeaseMarkers(new StateDir(file.resolve("magus")), tmp.resolve("cache"));
        assertThat(presence(behindFile.dir())).isEqualTo(Presence.NOT_A_DIRECTORY);
        assertThatThrownBy(() -> behindFile.covering(ws, Optional.empty())).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.getMessage()).contains("cannot read the leases"));

        LeaseMarkers markers = new LeaseMarkers(new StateDir(tmp.toRealPath().resolve("state")), tmp.resolve("cache"));
        Object[] seen = asNobody(() -> {
            try {
                return new Object[] {presence(markers.dir()), markers.covering(ws, Optional.empty())};
            } catch (SandboxException e) {
                return new Object[] {presence(markers.dir()), e};
            }
        });
        assertThat(seen[0]).as("EACCES on the way").isEqualTo(Presence.UNSURE);
        assertThat(seen[1]).as("as the JDK said: a lease that cannot be read is refused, never none")
                .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.getMessage()).contains("cannot read the leases"));
        assertThat(markers.covering(ws, Optional.empty())).as("root, with its capabilities").isEqualTo(Optional.empty());
    }

    /**
     * {@code call} on a thread whose file-system uid is nobody's ({@code setfsuid} is per thread):
     * the kernel clears that thread's CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH, so the temp
     * dir (mode 0700, root's) refuses it.
     */
    static <T> T asNobody(Callable<T> call) throws Exception {
        assumeTrue(ProcessHandle.current().info().user().map("root"::equals).orElse(false),
                "skipped: needs root to take another file-system uid on one thread");
        var setfsuid = NativeLibrary.getInstance("c").getFunction("setfsuid");
        FutureTask<T> task = new FutureTask<>(() -> {
            setfsuid.invokeInt(new Object[] {65534});
            int now = setfsuid.invokeInt(new Object[] {-1});
            if (now != 65534) {
                throw new IllegalStateException("setfsuid did not take: " + now);
            }
            return call.call();
        });
        Thread th = new Thread(task, "as-nobody");
        th.start();
        th.join();
        return task.get();
    }
}
