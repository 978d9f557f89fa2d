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
 * What the watcher learns from the mount table ({@link FanotifyWatcher#mountedBeneath(List)})
 * and the mount id from {@code statx} ({@link FanotifyWatcher#mountId(int)}), against the real
 * kernel: a filesystem beneath a root, however it got there, is always seen.
 */
class FanotifyMountTest {
    @TempDir
    Path tmp;

    @BeforeAll
    static void linuxOnly() {
        KernelLookupHost.assumeLinuxAndLoadNatives();
    }

    @Test
    void aMountOrUnmountBetweenTwoCallsIsSeen() throws Exception {
        Path t = tmp.toRealPath();
        Path m = Files.createDirectories(t.resolve("m"));
        List<Path> roots = List.of(t);
        assertThat(FanotifyWatcher.mountedBeneath(roots)).isEmpty();
        mountTmpfs(m);
        try {
            Optional<String> verdict = FanotifyWatcher.mountedBeneath(roots);
            assertThat(verdict).get().asString().contains("mounted beneath").contains(m.toString());
            assertThat(FanotifyWatcher.mountedBeneath(roots)).isEqualTo(verdict);
        } finally {
            umount(m);
        }
        assertThat(FanotifyWatcher.mountedBeneath(roots)).isEmpty();
    }

    /**
     * A rename of a directory above a mount point moves the mount's path with no mount event
     * (the security review's attack on a polled, held mount table: a run with write access to
     * both parents moves a foreign filesystem under the workspace, and the next run's mark
     * would not cover it). The table is read whole on every call, so the move is seen.
     */
    @Test
    void aMountMovedBeneathARootByARenameIsSeen() throws Exception {
        Path t = tmp.toRealPath();
        Path ws = Files.createDirectories(t.resolve("ws"));
        Path m = Files.createDirectories(t.resolve("out/a/m"));
        List<Path> roots = List.of(ws);
        mountTmpfs(m);
        Path moved = ws.resolve("a/m");
        try {
            assertThat(FanotifyWatcher.mountedBeneath(roots)).isEmpty();
            Files.move(t.resolve("out/a"), ws.resolve("a"));
            assertThat(FanotifyWatcher.mountedBeneath(roots)).get().asString()
                    .contains("mounted beneath").contains(moved.toString());
        } finally {
            umount(Files.isDirectory(moved) ? moved : m);
        }
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

    private static void mountTmpfs(Path m) throws Exception {
        Process p = new ProcessBuilder("mount", "-t", "tmpfs", "none", m.toString()).inheritIO().start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        if (p.exitValue() != 0) {
            System.out.println("FanotifyMountTest: skipped, cannot mount a tmpfs here (needs root and mount(8))");
            Assumptions.abort("cannot mount a tmpfs here (needs root and mount(8))");
        }
    }

    private static void umount(Path m) throws Exception {
        Process u = new ProcessBuilder("umount", m.toString()).inheritIO().start();
        assertThat(u.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(u.exitValue()).isZero();
    }
}
