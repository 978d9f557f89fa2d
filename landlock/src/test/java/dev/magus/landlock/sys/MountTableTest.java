package dev.magus.landlock.sys;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mount table kept open and polled ({@link MountTable}), and the mount id from
 * {@code statx} ({@link FanotifyWatcher#mountId(int)}), against the real kernel.
 */
class MountTableTest {
    @TempDir
    Path tmp;

    @BeforeAll
    static void linuxOnly() {
        KernelLookupHost.assumeLinuxAndLoadNatives();
    }

    @Test
    void anUnchangedTableIsNotReadAgainAndIsTheFilesBytes() throws Exception {
        MountTable.current();
        long reads = MountTable.reads();
        byte[] a = MountTable.current();
        byte[] b = MountTable.current();
        // Another test's mount in between would force a read: allow it, but then the bytes must be new.
        if (MountTable.reads() == reads) {
            assertThat(b).isSameAs(a);
        }
        assertThat(new String(b, StandardCharsets.UTF_8)).isEqualTo(Files.readString(Path.of("/proc/self/mountinfo")));
    }

    @Test
    void aMountOrUnmountBetweenTwoCallsIsReadAgain() throws Exception {
        Path t = tmp.toRealPath();
        Path m = Files.createDirectories(t.resolve("m"));
        List<Path> roots = List.of(t);
        assertThat(FanotifyWatcher.mountedBeneath(roots)).isEmpty();
        long before = MountTable.reads();
        Process p = new ProcessBuilder("mount", "-t", "tmpfs", "none", m.toString()).inheritIO().start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        if (p.exitValue() != 0) {
            System.out.println("MountTableTest: skipped, cannot mount a tmpfs here (needs root and mount(8))");
            Assumptions.abort("cannot mount a tmpfs here (needs root and mount(8))");
        }
        try {
            Optional<String> verdict = FanotifyWatcher.mountedBeneath(roots);
            assertThat(verdict).get().asString().contains("mounted beneath").contains(m.toString());
            assertThat(MountTable.reads()).isGreaterThan(before);
            // Asked again with no change: the same verdict, without a read.
            long after = MountTable.reads();
            assertThat(FanotifyWatcher.mountedBeneath(roots)).isEqualTo(verdict);
            assertThat(MountTable.reads()).isEqualTo(after);
        } finally {
            Process u = new ProcessBuilder("umount", m.toString()).inheritIO().start();
            assertThat(u.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(u.exitValue()).isZero();
        }
        // The unmount is a change too: the table is read again and the mount is gone from it.
        assertThat(FanotifyWatcher.mountedBeneath(roots)).isEmpty();
        assertThat(new String(MountTable.current(), StandardCharsets.UTF_8)).doesNotContain(m.toString());
    }

    @Test
    void theMountIdFromStatxIsFdinfos() throws Exception {
        Syscalls sys = Natives.syscalls();
        byte[] path = (tmp.toRealPath() + "\0").getBytes(StandardCharsets.UTF_8);
        int fd = sys.open(path, LibC.O_RDONLY | LibC.O_CLOEXEC, 0);
        assertThat(fd).isGreaterThanOrEqualTo(0);
        try {
            Optional<Integer> fdinfo = FanotifyWatcher.mountIdFromFdinfo(fd);
            assertThat(fdinfo).isPresent();
            assertThat(FanotifyWatcher.mountId(fd)).isEqualTo(fdinfo);
        } finally {
            sys.close(fd);
        }
        // A descriptor that is not open has no mount id either way.
        assertThat(FanotifyWatcher.mountId(fd)).isEqualTo(FanotifyWatcher.mountIdFromFdinfo(fd));
    }
}
