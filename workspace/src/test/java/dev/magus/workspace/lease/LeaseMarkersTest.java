package dev.magus.workspace.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.Code;
import dev.magus.events.SandboxException;
import dev.magus.workspace.StateDir;
import dev.magus.workspace.jobs.JobId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LeaseMarkersTest {
    @TempDir
    Path dir;
    StateDir state;
    Path cache;
    Path checkout;
    LeaseMarkers markers;

    @BeforeEach
    void setUp() throws IOException {
        dir = dir.toRealPath();
        state = new StateDir(dir.resolve("state/magus"));
        cache = dir.resolve("cache/magus");
        checkout = Files.createDirectories(dir.resolve("worker-1"));
        markers = new LeaseMarkers(state, cache);
    }

    @Test
    void acquireWritesOnePrivateFilePerCheckoutUnderTheCacheDirsHash() throws IOException {
        Marker m = markers.acquire(checkout, new JobId(7));

        assertThat(m.file().getParent()).isEqualTo(state.checkouts(cache));
        assertThat(m.file().getFileName().toString()).matches("[0-9a-f]{32}\\.lease");
        assertThat(Files.readString(m.file())).isEqualTo("checkout=" + checkout + "\njob=7\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(m.file()))).isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(m.file().getParent()))).isEqualTo("rwx------");
        assertThat(markers.find(checkout)).contains(m);
        assertThat(markers.list()).containsExactly(m);
        try (var files = Files.list(m.file().getParent())) {
            assertThat(files).as("no temp file left behind").containsExactly(m.file());
        }
    }

    @Test
    void theSameCheckoutSpelledThroughALinkIsTheSameLease() throws IOException {
        Path link = Files.createSymbolicLink(dir.resolve("link"), checkout);
        markers.acquire(link, new JobId(7));
        assertThat(markers.find(checkout)).map(Marker::job).contains(new JobId(7));
    }

    @Test
    void acquiringAgainForTheSameJobChangesNothingAndForAnotherIsRefused() {
        Marker m = markers.acquire(checkout, new JobId(7));
        assertThat(markers.acquire(checkout, new JobId(7))).isEqualTo(m);
        assertThatThrownBy(() -> markers.acquire(checkout, new JobId(8))).isInstanceOfSatisfying(SandboxException.class, e -> {
            assertThat(e.code()).isEqualTo(Code.MGS2004);
            assertThat(e.diagnostic().message()).contains("already leased to job 7");
        });
    }

    @Test
    void releaseRemovesTheMarkerAndReleasingNothingIsRefused() {
        markers.acquire(checkout, new JobId(7));
        assertThat(markers.release(checkout).job()).isEqualTo(new JobId(7));
        assertThat(markers.find(checkout)).isEmpty();
        assertThatThrownBy(() -> markers.release(checkout)).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.diagnostic().message()).contains("has no lease"));
    }

    @Test
    void aRunInsideALeasedCheckoutIsCoveredByItsLease() throws IOException {
        markers.acquire(checkout, new JobId(7));
        Path nested = Files.createDirectories(checkout.resolve("sub/project"));
        assertThat(markers.covering(nested, Optional.empty())).map(Marker::checkout).contains(checkout);
        assertThat(markers.covering(dir, Optional.empty())).isEmpty();
    }

    @Test
    void anotherCacheDirHasItsOwnLeases() {
        markers.acquire(checkout, new JobId(7));
        assertThat(new LeaseMarkers(state, dir.resolve("other-cache/magus")).find(checkout)).isEmpty();
    }

    @Test
    void aGarbledMarkerOrOneNamingAnotherCheckoutIsRefusedNotIgnored() throws IOException {
        Path file = markers.acquire(checkout, new JobId(7)).file();
        Files.writeString(file, "garbage\n");
        assertThatThrownBy(() -> markers.find(checkout)).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.diagnostic().message()).contains(file.toString()).contains("is not a lease marker"));
        Files.writeString(file, "checkout=/somewhere/else\njob=7\n");
        assertThatThrownBy(() -> markers.covering(checkout, Optional.empty())).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.diagnostic().message()).contains("not this checkout's"));
    }

    @Test
    void aMissingCheckoutCannotBeLeased() {
        assertThatThrownBy(() -> markers.acquire(dir.resolve("nope"), new JobId(1))).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.diagnostic().message()).contains("does not exist"));
    }
}
