package dev.magus.landlock.seccomp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.policy.net.NetworkMode;
import java.util.ArrayList;
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
    private static final int EPERM = SocketFilterProgram.RET_ERRNO | SetidModes.EPERM;

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
                case Insn.JMP_JSET_K -> pc += (acc & in.k()) != 0 ? in.jt() : in.jf();
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
                    new SocketRules(true, true), SocketRules.NOTHING)) {
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
    }

    @Test
    void otherCallsAreAllowedSocketpairIncludedAndIoUringIsNot() {
        for (Arch arch : Arch.values()) {
          for (SocketRules rules : List.of(SocketRules.of(NetworkMode.NONE, false), SocketRules.NOTHING)) {
            List<Insn> p = SocketFilterProgram.build(rules, arch);
            assertThat(run(p, arch.auditArch(), arch.socketpair(), SocketRules.AF_UNIX, SocketRules.SOCK_STREAM, 0))
                    .isEqualTo(ALLOW);
            for (int nr : new int[] {0, 1, 59, 60, 221, 231, 400, 424, 428}) {
                assertThat(run(p, arch.auditArch(), nr, SocketRules.AF_UNIX, 0, 0)).as("%s nr %d", arch, nr).isEqualTo(ALLOW);
            }
            for (int nr = Arch.IO_URING_SETUP; nr <= Arch.IO_URING_REGISTER; nr++) {
                assertThat(run(p, arch.auditArch(), nr)).isEqualTo(ENOSYS);
            }
            assertThat(run(p, arch.auditArch(), Arch.OPENAT2, -100, 0, 0, 24)).isEqualTo(ENOSYS);
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

    private static final long[] MODES = {0, 0644, 0755, 04755, 02755, 06755, 04000, 02000, 01777, 02644, 0100755, 0104755,
        0x1_0000_0000L | 0755, 0x4_0000_0000L | 04755, 0xffff_0000L | 0755, 0xffff_f000L, 07777};
    private static final int[] OPEN_FLAGS = {0, 01, 02, 0100, 0101, 01101, 0101 | 02000000, 020000000 | 0200000,
        020000000 | 040000, 0200000, 040000, 02000000};

    /** Every mode-taking call of {@code arch} with the argument lists it is made with, by number. */
    private static List<long[]> modeCalls(Arch arch) {
        List<long[]> out = new ArrayList<>();
        for (long m : MODES) {
            out.add(new long[] {arch.fchmod(), 3, m});
            out.add(new long[] {arch.fchmodat(), -100, 0x1000, m, 0});
            out.add(new long[] {Arch.FCHMODAT2, -100, 0x1000, m, 0x100});
            out.add(new long[] {arch.mknodat(), -100, 0x1000, m, 0});
            for (int flags : OPEN_FLAGS) {
                out.add(new long[] {arch.openat(), -100, 0x1000, flags, m});
                if (arch.open() != Arch.NONE) {
                    out.add(new long[] {arch.open(), 0x1000, flags, m});
                }
            }
            if (arch.chmod() != Arch.NONE) {
                out.add(new long[] {arch.chmod(), 0x1000, m});
                out.add(new long[] {arch.creat(), 0x1000, m});
                out.add(new long[] {arch.mknod(), 0x1000, m, 0});
            }
        }
        return out;
    }

    @Test
    void theProgramRefusesEverySetIdModeAsTheRuleDoesOnBothArchitectures() {
        for (Arch arch : Arch.values()) {
            for (SocketRules rules : List.of(SocketRules.NOTHING, SocketRules.of(NetworkMode.NONE, false))) {
                List<Insn> p = SocketFilterProgram.build(rules, arch);
                assertThat(p.size()).isLessThan(80);
                for (long[] call : modeCalls(arch)) {
                    int nr = (int) call[0];
                    long[] args = java.util.Arrays.copyOfRange(call, 1, call.length);
                    int expected = SetidModes.refusal(arch, nr, args).isPresent() ? EPERM : ALLOW;
                    assertThat(run(p, arch.auditArch(), nr, args)).as("%s %s nr %d %s", arch, rules, nr,
                            java.util.Arrays.toString(args)).isEqualTo(expected);
                }
            }
        }
    }

    @Test
    void pushingInputIntoATerminalIsRefusedAndOtherTerminalIoctlsAreNot() {
        for (Arch arch : Arch.values()) {
            for (SocketRules rules : List.of(SocketRules.NOTHING, SocketRules.of(NetworkMode.NONE, false))) {
                List<Insn> p = SocketFilterProgram.build(rules, arch);
                int a = arch.auditArch();
                for (long request : new long[] {0x5412, 0x541C, 0x5401, 0x5413, 0x5414, 0x540E, 0x80045430L,
                        0x1_0000_5412L, 0x5412 + 1}) {
                    int expected = TerminalInjection.refusal(arch, arch.ioctl(), 0, request, 0x1000).isPresent()
                            ? EPERM : ALLOW;
                    assertThat(run(p, a, arch.ioctl(), 0, request, 0x1000)).as("%s ioctl %x", arch, request)
                            .isEqualTo(expected);
                }
                // TIOCSTI and TIOCLINUX on any descriptor; the window size and the modes stay.
                assertThat(run(p, a, arch.ioctl(), 0, TerminalInjection.TIOCSTI, 0x1000)).isEqualTo(EPERM);
                assertThat(run(p, a, arch.ioctl(), 7, TerminalInjection.TIOCLINUX, 0x1000)).isEqualTo(EPERM);
                assertThat(run(p, a, arch.ioctl(), 0, 0x5413, 0x1000)).as("TIOCGWINSZ").isEqualTo(ALLOW);
                assertThat(run(p, a, arch.ioctl(), 0, 0x5401, 0x1000)).as("TCGETS").isEqualTo(ALLOW);
                // The kernel reads the request as an unsigned int: a high half does not hide it.
                assertThat(run(p, a, arch.ioctl(), 0, 0x7_0000_5412L, 0x1000)).isEqualTo(EPERM);
            }
        }
    }

    @Test
    void setIdBitsAreRefusedAndOrdinaryModesAreNot() {
        for (Arch arch : Arch.values()) {
            List<Insn> p = SocketFilterProgram.build(SocketRules.NOTHING, arch);
            int a = arch.auditArch();
            // chmod 4755, chmod g+s, chmod 755
            assertThat(run(p, a, arch.fchmodat(), -100, 0x1000, 04755, 0)).isEqualTo(EPERM);
            assertThat(run(p, a, arch.fchmodat(), -100, 0x1000, 02755, 0)).isEqualTo(EPERM);
            assertThat(run(p, a, arch.fchmodat(), -100, 0x1000, 0755, 0)).isEqualTo(ALLOW);
            assertThat(run(p, a, Arch.FCHMODAT2, -100, 0x1000, 06755, 0)).isEqualTo(EPERM);
            assertThat(run(p, a, arch.fchmod(), 3, 04711)).isEqualTo(EPERM);
            assertThat(run(p, a, arch.fchmod(), 3, 01777)).as("sticky is no privilege").isEqualTo(ALLOW);
            // open(O_CREAT|O_WRONLY, 04755); O_TMPFILE; a mode that does not count without O_CREAT
            assertThat(run(p, a, arch.openat(), -100, 0x1000, 0101, 04755)).isEqualTo(EPERM);
            assertThat(run(p, a, arch.openat(), -100, 0x1000, 0101, 0644)).isEqualTo(ALLOW);
            assertThat(run(p, a, arch.openat(), -100, 0x1000, 020000000 | 02, 02755)).isEqualTo(EPERM);
            assertThat(run(p, a, arch.openat(), -100, 0x1000, 0, 04755)).isEqualTo(ALLOW);
            // the high half of a mode is not the kernel's
            assertThat(run(p, a, arch.openat(), -100, 0x1000, 0101, 0x4_0000_0000L | 0755)).isEqualTo(ALLOW);
            assertThat(run(p, a, arch.mknodat(), -100, 0x1000, 0100000 | 04755, 0)).isEqualTo(EPERM);
            assertThat(run(p, a, arch.mknodat(), -100, 0x1000, 0100000 | 0644, 0)).isEqualTo(ALLOW);
        }
        List<Insn> x86 = SocketFilterProgram.build(SocketRules.NOTHING, Arch.X86_64);
        int a = Arch.X86_64.auditArch();
        assertThat(run(x86, a, 90, 0x1000, 04755)).as("chmod").isEqualTo(EPERM);
        assertThat(run(x86, a, 85, 0x1000, 02755)).as("creat").isEqualTo(EPERM);
        assertThat(run(x86, a, 85, 0x1000, 0755)).as("creat").isEqualTo(ALLOW);
        assertThat(run(x86, a, 2, 0x1000, 0101, 04755)).as("open").isEqualTo(EPERM);
        assertThat(run(x86, a, 2, 0x1000, 0, 04755)).as("open without O_CREAT").isEqualTo(ALLOW);
        assertThat(run(x86, a, 133, 0x1000, 0100000 | 06000, 0)).as("mknod").isEqualTo(EPERM);
        // On aarch64 those numbers are other calls: 90 is capget, 2 io_cancel, 85 timerfd_create.
        List<Insn> arm = SocketFilterProgram.build(SocketRules.NOTHING, Arch.AARCH64);
        int b = Arch.AARCH64.auditArch();
        assertThat(run(arm, b, 90, 0x1000, 04755)).isEqualTo(ALLOW);
        assertThat(run(arm, b, 85, 1, 04000)).isEqualTo(ALLOW);
        assertThat(run(arm, b, 2, 0x1000, 0101, 04755)).isEqualTo(ALLOW);
        // x86_64's openat number is another call on aarch64, and the other way round
        assertThat(run(arm, b, 257, -100, 0x1000, 0101, 04755)).isEqualTo(ALLOW);
        assertThat(run(x86, a, 56, -100, 0x1000, 0101, 04755)).isEqualTo(ALLOW);
        assertThat(run(arm, b, 56, -100, 0x1000, 0101, 04755)).isEqualTo(EPERM);
    }
}
