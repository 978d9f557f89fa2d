package dev.magus.landlock.seccomp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.policy.net.NetworkMode;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The BPF program run by a classic-BPF interpreter over synthetic {@code seccomp_data}, without
 * the kernel: every rule combination on both architectures against {@link SocketRules#refusal}.
 */
class SocketFilterProgramTest {
    private static final int EACCES = SocketFilterProgram.RET_ERRNO | SocketRules.EACCES;
    private static final int ENOSYS = SocketFilterProgram.RET_ERRNO | SocketRules.ENOSYS;
    private static final int ALLOW = SocketFilterProgram.RET_ALLOW;

    /** {@code seccomp_data}: nr, arch, ip, then six 64-bit arguments. */
    static int run(List<Insn> program, int arch, int nr, long... args) {
        int[] words = new int[16];
        words[0] = nr;
        words[1] = arch;
        for (int i = 0; i < args.length; i++) {
            words[4 + 2 * i] = (int) args[i];
            words[5 + 2 * i] = (int) (args[i] >>> 32);
        }
        int acc = 0;
        int pc = 0;
        while (true) {
            Insn in = program.get(pc++);
            switch (in.code()) {
                case Insn.LD_W_ABS -> acc = words[in.k() / 4];
                case Insn.ALU_AND_K -> acc &= in.k();
                case Insn.JMP_JA -> pc += in.k();
                case Insn.JMP_JEQ_K -> pc += acc == in.k() ? in.jt() : in.jf();
                case Insn.JMP_JGE_K -> pc += Integer.compareUnsigned(acc, in.k()) >= 0 ? in.jt() : in.jf();
                case Insn.RET_K -> {
                    return in.k();
                }
                default -> throw new AssertionError("opcode " + in.code());
            }
        }
    }

    private static final int[] DOMAINS = {0, 1, 2, 3, 4, 5, 9, 10, 16, 17, 38, 40, 44, 45};
    private static final int[] TYPES = {1, 2, 3, 5, 6, 10, 1 | 0x800, 2 | 0x80000, 1 | 0x800 | 0x80000, 3 | 0x800};
    private static final int[] PROTOCOLS = {0, 1, 4, 6, 9, 15, 17, 58, 132, 255, 262, 0x0300};

    @Test
    void theProgramDecidesEverySocketAsTheRulesDo() {
        for (Arch arch : Arch.values()) {
            for (SocketRules rules : List.of(new SocketRules(false, false), new SocketRules(false, true),
                    new SocketRules(true, true))) {
                List<Insn> p = SocketFilterProgram.build(rules, arch);
                assertThat(p.size()).isLessThan(64);
                for (int d : DOMAINS) {
                    for (int t : TYPES) {
                        for (int proto : PROTOCOLS) {
                            int expected = rules.refusal(d, t, proto).isPresent() ? EACCES : ALLOW;
                            assertThat(run(p, arch.auditArch(), arch.socket(), d, t, proto))
                                    .as("%s %s socket(%d, %d, %d)", arch, rules, d, t, proto).isEqualTo(expected);
                            // the high halves of the arguments are not the kernel's, nor the filter's
                            assertThat(run(p, arch.auditArch(), arch.socket(), d | 0x1_0000_0000L, t, proto))
                                    .isEqualTo(expected);
                        }
                    }
                }
            }
        }
    }

    @Test
    void underNoneUdpRawIcmpPacketAndMptcpAreRefusedAndTcpIsNot() {
        SocketRules none = SocketRules.of(NetworkMode.NONE, false);
        assertThat(none.refusal(SocketRules.AF_INET, SocketRules.SOCK_DGRAM, 0)).isPresent();
        assertThat(none.refusal(SocketRules.AF_INET6, SocketRules.SOCK_DGRAM | SocketRules.SOCK_CLOEXEC, 17)).isPresent();
        assertThat(none.refusal(SocketRules.AF_INET, SocketRules.SOCK_RAW, 1)).isPresent();
        assertThat(none.refusal(SocketRules.AF_INET, SocketRules.SOCK_DGRAM, 1)).as("ICMP datagram (ping)").isPresent();
        assertThat(none.refusal(SocketRules.AF_PACKET, SocketRules.SOCK_RAW, 0x0300)).isPresent();
        assertThat(none.refusal(SocketRules.AF_INET, SocketRules.SOCK_STREAM, SocketRules.IPPROTO_MPTCP)).isPresent();
        assertThat(none.refusal(SocketRules.AF_NETLINK, SocketRules.SOCK_RAW, 9)).as("netlink audit").isPresent();
        assertThat(none.refusal(SocketRules.AF_NETLINK, SocketRules.SOCK_RAW, 0)).as("netlink route").isEmpty();
        assertThat(none.refusal(SocketRules.AF_INET6, SocketRules.SOCK_STREAM | SocketRules.SOCK_NONBLOCK, 6)).isEmpty();
        assertThat(none.refusal(SocketRules.AF_UNIX, SocketRules.SOCK_STREAM, 0)).isPresent();
        assertThat(SocketRules.of(NetworkMode.PROXY, true).refusal(SocketRules.AF_UNIX, SocketRules.SOCK_STREAM, 0)).isEmpty();
        SocketRules open = SocketRules.of(NetworkMode.OPEN, false);
        assertThat(open.refusal(SocketRules.AF_INET, SocketRules.SOCK_DGRAM, 0)).isEmpty();
        assertThat(open.refusal(SocketRules.AF_UNIX, SocketRules.SOCK_DGRAM, 0)).isPresent();
        assertThat(SocketRules.of(NetworkMode.OPEN, true).refusesAnything()).isFalse();
        assertThatThrownBy(() -> SocketFilterProgram.build(SocketRules.NOTHING, Arch.X86_64))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void otherCallsAreAllowedSocketpairIncludedAndIoUringIsNot() {
        for (Arch arch : Arch.values()) {
            List<Insn> p = SocketFilterProgram.build(SocketRules.of(NetworkMode.NONE, false), arch);
            assertThat(run(p, arch.auditArch(), arch.socketpair(), SocketRules.AF_UNIX, SocketRules.SOCK_STREAM, 0))
                    .isEqualTo(ALLOW);
            for (int nr : new int[] {0, 1, 59, 60, 221, 231, 400, 424, 428}) {
                assertThat(run(p, arch.auditArch(), nr, SocketRules.AF_UNIX, 0, 0)).as("%s nr %d", arch, nr).isEqualTo(ALLOW);
            }
            for (int nr = Arch.IO_URING_SETUP; nr <= Arch.IO_URING_REGISTER; nr++) {
                assertThat(run(p, arch.auditArch(), nr)).isEqualTo(ENOSYS);
            }
        }
    }

    @Test
    void anotherArchitectureIsKilledAndX32CallsAreRefused() {
        List<Insn> x86 = SocketFilterProgram.build(SocketRules.of(NetworkMode.OPEN, false), Arch.X86_64);
        int i386 = 0x40000003;
        assertThat(run(x86, i386, 102, 1, 0, 0)).as("socketcall").isEqualTo(SocketFilterProgram.RET_KILL_PROCESS);
        assertThat(run(x86, Arch.AARCH64.auditArch(), 0)).isEqualTo(SocketFilterProgram.RET_KILL_PROCESS);
        assertThat(run(x86, Arch.X86_64.auditArch(), Arch.X32_SYSCALL_BIT + 41, SocketRules.AF_INET, 1, 0)).isEqualTo(ENOSYS);
        assertThat(run(x86, Arch.X86_64.auditArch(), Arch.X32_SYSCALL_BIT + 1)).isEqualTo(ENOSYS);
        List<Insn> arm = SocketFilterProgram.build(SocketRules.of(NetworkMode.OPEN, false), Arch.AARCH64);
        assertThat(run(arm, Arch.X86_64.auditArch(), 198, 1, 1, 0)).isEqualTo(SocketFilterProgram.RET_KILL_PROCESS);
        assertThat(run(arm, 0x40000028, 281, 1, 1, 0)).as("arm32").isEqualTo(SocketFilterProgram.RET_KILL_PROCESS);
        assertThat(Arch.of("amd64")).contains(Arch.X86_64);
        assertThat(Arch.of("aarch64")).contains(Arch.AARCH64);
        assertThat(Arch.of("riscv64")).isEmpty();
    }
}
