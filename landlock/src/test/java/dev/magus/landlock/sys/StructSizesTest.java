package dev.magus.landlock.sys;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Structure;
import org.junit.jupiter.api.Test;

class StructSizesTest {

    @Test
    void pathBeneathAttrIsPackedToTwelveBytes() {
        Structs.PathBeneathAttr attr = new Structs.PathBeneathAttr();
        assertThat(attr.size()).isEqualTo(12);
        attr.allowed_access = 0x0102030405060708L;
        attr.parent_fd = 0x11223344;
        attr.write();
        assertThat(attr.getPointer().getLong(0)).isEqualTo(0x0102030405060708L);
        assertThat(attr.getPointer().getInt(8)).isEqualTo(0x11223344);
    }

    /** {@link Structs.PathBeneathAttr#set} writes the very bytes {@code write()} writes (the compile uses it). */
    @Test
    void pathBeneathSetWritesTheSameBytesAsWrite() {
        long[] rights = {0, 1, 0xc000L | 0x1fffL, 0x0102030405060708L, -1L};
        int[] fds = {0, 3, 1023, 0x11223344, -1};
        for (long r : rights) {
            for (int fd : fds) {
                Structs.PathBeneathAttr viaWrite = new Structs.PathBeneathAttr();
                viaWrite.allowed_access = r;
                viaWrite.parent_fd = fd;
                viaWrite.write();
                Structs.PathBeneathAttr viaSet = new Structs.PathBeneathAttr();
                viaSet.set(r, fd);
                assertThat(viaSet.getPointer().getByteArray(0, 12)).isEqualTo(viaWrite.getPointer().getByteArray(0, 12));
                assertThat(viaSet.allowed_access).isEqualTo(r);
                assertThat(viaSet.parent_fd).isEqualTo(fd);
            }
        }
    }

    /** Why the packing matters: JNA's default alignment pads the same fields to 16, which the kernel rejects. */
    @Structure.FieldOrder({"allowed_access", "parent_fd"})
    public static final class Unpacked extends Structure {
        public long allowed_access;
        public int parent_fd;
    }

    @Test
    void defaultAlignmentWouldPadIt() {
        assertThat(new Unpacked().size()).isEqualTo(16);
    }

    @Test
    void rulesetAttrCarriesFsNetAndScope() {
        Structs.RulesetAttr attr = new Structs.RulesetAttr();
        assertThat(attr.size()).isEqualTo(24);
        attr.handled_access_fs = 1;
        attr.handled_access_net = 2;
        attr.scoped = 3;
        attr.write();
        assertThat(attr.getPointer().getLong(0)).isEqualTo(1);
        assertThat(attr.getPointer().getLong(8)).isEqualTo(2);
        assertThat(attr.getPointer().getLong(16)).isEqualTo(3);
    }

    @Test
    void capabilityStructs() {
        assertThat(new Structs.CapHeader().size()).isEqualTo(8);
        assertThat(new Structs.CapData().size()).isEqualTo(12);
        Structure[] two = new Structs.CapData().toArray(2);
        assertThat(com.sun.jna.Pointer.nativeValue(two[1].getPointer()) - com.sun.jna.Pointer.nativeValue(two[0].getPointer())).isEqualTo(12);
    }

    @Test
    void allocationsCoverGlibcTypes() {
        // glibc x86_64/aarch64: posix_spawnattr_t 336, posix_spawn_file_actions_t 80, sigset_t 128, siginfo_t 128.
        assertThat(LibC.SPAWNATTR_ALLOCATION).isGreaterThanOrEqualTo(336);
        assertThat(LibC.FILE_ACTIONS_ALLOCATION).isGreaterThanOrEqualTo(80);
        assertThat(LibC.SIGSET_SIZE).isEqualTo(128);
        assertThat(LibC.SIGINFO_SIZE).isEqualTo(128);
    }

    @Test
    void rightBitsMatchTheKernelHeader() {
        assertThat(Landlock.EXECUTE).isEqualTo(1L);
        assertThat(Landlock.MAKE_SYM).isEqualTo(1L << 12);
        assertThat(Landlock.REFER).isEqualTo(1L << 13);
        assertThat(Landlock.TRUNCATE).isEqualTo(1L << 14);
        assertThat(Landlock.IOCTL_DEV).isEqualTo(1L << 15);
        assertThat(Landlock.FILE_RIGHTS).isEqualTo(0b1100_0000_0000_0111L);
    }

    @Test
    void keptCapabilitiesAreDockersDefaultWithoutMknod() {
        assertThat(Capabilities.KEPT & (1L << Capabilities.MKNOD)).isZero();
        assertThat(Capabilities.KEPT & (1L << Capabilities.SYS_ADMIN)).isZero();
        assertThat(Capabilities.KEPT & (1L << Capabilities.PERFMON)).isZero();
        assertThat(Capabilities.KEPT & (1L << Capabilities.SYS_PTRACE)).isZero();
        assertThat(Capabilities.KEPT & (1L << Capabilities.NET_RAW)).isZero();
        assertThat(Capabilities.KEPT & (1L << Capabilities.NET_ADMIN)).isZero();
        assertThat(Capabilities.KEPT & (1L << Capabilities.FSETID)).isZero();
        assertThat(Long.bitCount(Capabilities.KEPT)).isEqualTo(11);
    }
}
