package dev.magus.landlock.supervise;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Operation;
import dev.magus.landlock.seccomp.Arch;
import org.junit.jupiter.api.Test;

/** How a call's arguments become the access it asks for, without a child. */
class NotifiedCallTest {

    @Test
    void openFlagsDecideReadOrWriteAndAnOpathOpenIsNothing() {
        assertThat(Call.OPENAT.operation(0)).hasValue(Operation.READ);
        assertThat(Call.OPENAT.operation(0200000 /* O_DIRECTORY */)).hasValue(Operation.READ);
        assertThat(Call.OPENAT.operation(Call.O_WRONLY)).hasValue(Operation.WRITE);
        assertThat(Call.OPENAT.operation(Call.O_RDWR)).hasValue(Operation.WRITE);
        assertThat(Call.OPEN.operation(Call.O_CREAT)).hasValue(Operation.WRITE);
        assertThat(Call.OPENAT2.operation(Call.O_TRUNC)).hasValue(Operation.WRITE);
        assertThat(Call.OPENAT.operation(Call.O_PATH)).isEmpty();
        assertThat(Call.EXECVE.operation(Call.O_WRONLY)).hasValue(Operation.EXEC);
        assertThat(Call.RENAMEAT2.operation(0)).hasValue(Operation.WRITE);
        assertThat(Call.CONNECT.operation(0)).hasValue(Operation.CONNECT);
    }

    @Test
    void renameNamesBothPathsAndLinkOnlyTheNewOne() {
        assertThat(Call.RENAMEAT2.pathCount()).isEqualTo(2);
        assertThat(Call.LINKAT.pathCount()).isEqualTo(1);
        assertThat(Call.LINKAT.pathArg(0)).isEqualTo(3);
        assertThat(Call.SYMLINKAT.dirArg(0)).isEqualTo(1);
        assertThat(Call.of(Arch.X86_64, 257)).hasValue(Call.OPENAT);
        assertThat(Call.of(Arch.AARCH64, 56)).hasValue(Call.OPENAT);
        assertThat(Call.of(Arch.X86_64, 0)).isEmpty();
    }

    @Test
    void relativePathsJoinTheirDirectoryAndAnEmptyOneIsTheDirectoryItself() {
        assertThat(NotifiedCall.join("/w", "a/b")).isEqualTo("/w/a/b");
        assertThat(NotifiedCall.join("/", "etc")).isEqualTo("/etc");
        assertThat(NotifiedCall.join("/w/f", "")).isEqualTo("/w/f");
    }

    @Test
    void socketAddressesAreReadAsTheKernelLaysThemOut() {
        byte[] in4 = {2, 0, 0x1f, (byte) 0x90, 127, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};
        assertThat(NotifiedCall.inet(in4)).hasValue(new NotifiedCall.Inet("127.0.0.1", 8080));
        byte[] in6 = new byte[28];
        in6[0] = 10;
        in6[3] = 22;
        in6[23] = 1;
        assertThat(NotifiedCall.inet(in6)).hasValue(new NotifiedCall.Inet("[0:0:0:0:0:0:0:1]", 22));
        byte[] unix = {1, 0, '/', 't', 'm', 'p'};
        assertThat(NotifiedCall.inet(unix)).isEmpty();
    }

    @Test
    void procSelfIsTheCallersNotMagus() {
        long me = ProcessHandle.current().pid();
        int tid = dev.magus.landlock.sys.Natives.syscalls().gettid();
        assertThat(NotifiedCall.ownProc(tid, "/proc/self/coredump_filter")).isEqualTo("/proc/" + me + "/coredump_filter");
        assertThat(NotifiedCall.ownProc(tid, "/proc/self")).isEqualTo("/proc/" + me);
        assertThat(NotifiedCall.ownProc(tid, "/proc/thread-self/comm")).isEqualTo("/proc/" + me + "/task/" + tid + "/comm");
        assertThat(NotifiedCall.ownProc(tid, "/proc/selfish")).isEqualTo("/proc/selfish");
        assertThat(NotifiedCall.ownProc(tid, "/etc/passwd")).isEqualTo("/etc/passwd");
    }
}
