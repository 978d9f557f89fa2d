package dev.magus.landlock.compile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.abi.AbiRights;
import dev.magus.landlock.sys.Landlock;
import dev.magus.policy.fs.AccessMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class RightsTest {

    @Test
    void readOnADirectoryListsIt() {
        assertThat(Rights.of(AccessMode.R, FileKind.DIRECTORY, 7)).isEqualTo(Landlock.READ_FILE | Landlock.READ_DIR);
        assertThat(Rights.of(AccessMode.R, FileKind.FILE, 7)).isEqualTo(Landlock.READ_FILE);
    }

    @Test
    void readNeverImpliesExec() {
        assertThat(Rights.of(AccessMode.R, FileKind.DIRECTORY, 7) & Landlock.EXECUTE).isZero();
        assertThat(Rights.of(AccessMode.RW, FileKind.DIRECTORY, 7) & Landlock.EXECUTE).isZero();
        assertThat(Rights.of(AccessMode.RX, FileKind.FILE, 7) & Landlock.EXECUTE).isEqualTo(Landlock.EXECUTE);
    }

    @Test
    void writeOnADirectoryCreatesRemovesAndRefersFromAbi2() {
        long w1 = Rights.of(new AccessMode(2), FileKind.DIRECTORY, 1);
        assertThat(w1 & Landlock.REFER).isZero();
        assertThat(w1 & Landlock.TRUNCATE).isZero();
        assertThat(w1 & Landlock.MAKE_REG).isEqualTo(Landlock.MAKE_REG);
        long w2 = Rights.of(new AccessMode(2), FileKind.DIRECTORY, 2);
        assertThat(w2 & Landlock.REFER).isEqualTo(Landlock.REFER);
        long w3 = Rights.of(new AccessMode(2), FileKind.DIRECTORY, 3);
        assertThat(w3 & Landlock.TRUNCATE).isEqualTo(Landlock.TRUNCATE);
        assertThat(w3 & Landlock.IOCTL_DEV).isZero();
        assertThat(Rights.of(new AccessMode(2), FileKind.DIRECTORY, 5) & Landlock.IOCTL_DEV).isEqualTo(Landlock.IOCTL_DEV);
    }

    @Test
    void ioctlOnlyWithWriteOnDevicesAndDirectories() {
        assertThat(Rights.of(AccessMode.RW, FileKind.DEVICE, 5) & Landlock.IOCTL_DEV).isEqualTo(Landlock.IOCTL_DEV);
        assertThat(Rights.of(AccessMode.RW, FileKind.FILE, 5) & Landlock.IOCTL_DEV).isZero();
        assertThat(Rights.of(AccessMode.R, FileKind.DEVICE, 5) & Landlock.IOCTL_DEV).isZero();
    }

    @Property
    void alwaysWithinTheAbiAndFileRightsForNonDirectories(@ForAll @IntRange(min = 0, max = 7) int bits,
                                                          @ForAll FileKind kind,
                                                          @ForAll @IntRange(min = 1, max = 9) int abi) {
        long r = Rights.of(new AccessMode(bits), kind, abi);
        assertThat(r & ~AbiRights.handledFs(abi)).isZero();
        if (kind != FileKind.DIRECTORY) {
            assertThat(r & ~Landlock.FILE_RIGHTS).isZero();
        }
        assertThat(r == 0).isEqualTo(bits == 0);
    }
}
