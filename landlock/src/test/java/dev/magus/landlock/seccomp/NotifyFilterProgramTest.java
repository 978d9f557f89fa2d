package dev.magus.landlock.seccomp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.supervise.Call;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The supervised child's program, run by the classic-BPF interpreter of {@link SocketFilterProgramTest}. */
class NotifyFilterProgramTest {

    @Test
    void everyNamedCallIsNotifiedAndEveryOtherAllowedOnBothArchitectures() {
        for (Arch arch : Arch.values()) {
            int[] named = Call.numbers(arch);
            List<Insn> p = NotifyFilterProgram.build(arch, named);
            for (int nr = 0; nr < 600; nr++) {
                int n = nr;
                boolean notified = Arrays.stream(named).anyMatch(x -> x == n);
                assertThat(SocketFilterProgramTest.run(p, arch.auditArch(), nr))
                        .as("%s call %d", arch, nr)
                        .isEqualTo(notified ? NotifyFilterProgram.RET_USER_NOTIF : SocketFilterProgram.RET_ALLOW);
            }
            // Another architecture's numbers are not these: let through (the socket filter kills them).
            assertThat(SocketFilterProgramTest.run(p, 0x40000003, named[0])).isEqualTo(SocketFilterProgram.RET_ALLOW);
        }
    }

    @Test
    void theCallsThatNameAPathOrAnAddressAreAllThere() {
        assertThat(Call.numbers(Arch.X86_64)).contains(2, 257, 437, 59, 322, 258, 263, 316, 265, 266, 76, 90, 268, 42, 49);
        assertThat(Call.numbers(Arch.AARCH64)).contains(56, 437, 221, 281, 34, 35, 276, 37, 36, 45, 53, 203, 200)
                .doesNotContain(Arch.NONE);
    }
}
