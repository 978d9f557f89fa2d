package dev.magus.landlock.sys;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A descriptor's mode is that of the inode it holds, as a stat of /proc/self/fd/FD says, even after its path changed. */
class FdStatTest {
    @TempDir
    Path root;

    @Test
    void theModeOfAnOPathDescriptorIsItsInodes() throws Exception {
        Assumptions.assumeTrue(Natives.syscalls().available(), "skipped: natives unavailable: " + Natives.syscalls().unavailableReason());
        Path tmp = root.toRealPath();
        Path dir = Files.createDirectories(tmp.resolve("d"));
        Path file = Files.writeString(tmp.resolve("f"), "x");
        for (Path p : new Path[] {dir, file, Path.of("/dev/null")}) {
            int fd = NoLinkOpen.open(p.toString());
            assertThat(fd).as(p.toString()).isGreaterThanOrEqualTo(0);
            try {
                int viaProc = (Integer) Files.getAttribute(Path.of("/proc/self/fd/" + fd), "unix:mode");
                assertThat(FdStat.mode(fd)).as(p.toString()).isEqualTo(OptionalInt.of(viaProc));
                if (p.equals(dir)) {
                    // Swapped for a file under the same name: the descriptor still holds the directory.
                    Files.move(dir, tmp.resolve("moved"));
                    Files.writeString(dir, "now a file");
                    assertThat(FdStat.mode(fd).getAsInt() & 0170000).isEqualTo(0040000);
                }
            } finally {
                Natives.syscalls().close(fd);
            }
        }
        assertThat(FdStat.mode(-1)).isEmpty();
        assertThat(FdStat.mode(Integer.MAX_VALUE)).as("not open").isEmpty();
    }
}
