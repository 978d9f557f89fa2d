package dev.magus.orchestrator.contain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The kernel's cgroup files, read as text: the mount, a process's cgroup, events and id lists. */
class CgroupTextTest {
    static final String HYBRID = """
            30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
            31 30 0:28 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
            39 30 0:36 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
            40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
            """;

    @Test
    void theCgroup2MountIsFoundOnAHybridAndAUnifiedHost() {
        assertThat(CgroupText.cgroup2Mount(HYBRID)).contains(Path.of("/sys/fs/cgroup/unified"));
        assertThat(CgroupText.cgroup2Mount(
                "25 21 0:22 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"))
                .contains(Path.of("/sys/fs/cgroup"));
    }

    @Test
    void aHostWithCgroupV1OnlyHasNoMount() {
        assertThat(CgroupText.cgroup2Mount(HYBRID.replace("cgroup2 cgroup2", "tmpfs tmpfs"))).isEmpty();
        assertThat(CgroupText.cgroup2Mount("")).isEmpty();
    }

    @Test
    void aBindMountOfASubtreeIsNotTheHierarchysRoot() {
        assertThat(CgroupText.cgroup2Mount("40 30 0:37 /user.slice /mnt/cg rw - cgroup2 cgroup2 rw\n")).isEmpty();
    }

    @Test
    void aMountPointWithASpaceIsUnescaped() {
        assertThat(CgroupText.cgroup2Mount("40 30 0:37 / /mnt/my\\040cgroups rw - cgroup2 cgroup2 rw\n"))
                .contains(Path.of("/mnt/my cgroups"));
    }

    @Test
    void theUnifiedLineOfProcCgroupIsTheCgroup() {
        assertThat(CgroupText.unifiedPath("4:memory:/x\n1:cpu:/\n0::/user.slice/user-1000.slice/session-2.scope\n"))
                .contains("/user.slice/user-1000.slice/session-2.scope");
        assertThat(CgroupText.unifiedPath("0::/\n")).contains("/");
    }

    @Test
    void noUnifiedLineOrAPathOutOfReachIsNoCgroup() {
        assertThat(CgroupText.unifiedPath("4:memory:/x\n1:cpu:/\n")).isEmpty();
        assertThat(CgroupText.unifiedPath("0::/../other\n")).isEmpty();
        assertThat(CgroupText.unifiedPath("0::/gone (deleted)\n")).isEmpty();
        assertThat(CgroupText.unifiedPath("0::\n")).isEmpty();
    }

    @Test
    void eventsSayPopulatedAndFrozen() {
        assertThat(CgroupText.events("populated 1\nfrozen 0\n")).isEqualTo(new CgroupText.Events(true, false));
        assertThat(CgroupText.events("populated 0\nfrozen 1\n")).isEqualTo(new CgroupText.Events(false, true));
        // Before 5.2 there is no freezer: no frozen line.
        assertThat(CgroupText.events("populated 0\n")).isEqualTo(new CgroupText.Events(false, false));
    }

    @Test
    void eventsWithoutPopulatedFailClosed() {
        assertThatThrownBy(() -> CgroupText.events("frozen 1\n")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("populated");
    }

    @Test
    void idsAreTheLinesThatAreNumbers() {
        assertThat(CgroupText.ids("12\n345\n\n")).isEqualTo(List.of(12L, 345L));
        assertThat(CgroupText.ids("x\n-1\n99999999999999999999\n7\n")).isEqualTo(List.of(7L));
        assertThat(CgroupText.ids("")).isEqualTo(List.of());
    }

    @Test
    void anEscapeThatIsNotOctalStaysAsWritten() {
        assertThat(CgroupText.unescape("a\\x41b\\04")).isEqualTo("a\\x41b\\04");
        assertThat(Optional.of(CgroupText.unescape("\\134"))).contains("\\");
    }
}
