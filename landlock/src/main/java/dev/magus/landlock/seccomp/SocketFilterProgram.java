package dev.magus.landlock.seccomp;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The classic BPF program of {@link SocketRules} for one {@link Arch}: a pure function from the
 * rules to the instruction list, which the launcher copies into a {@code sock_fprog}. Plain
 * return values only (no user notification): ALLOW, ERRNO(EACCES) for a refused socket,
 * ERRNO(ENOSYS) for {@code io_uring} and x32 calls, KILL_PROCESS for another architecture.
 *
 * <p>The arguments are read as their low 32 bits ({@code seccomp_data.args[i]} is 64 bits,
 * little endian on both architectures): {@code socket}'s three are C {@code int}s, and the
 * kernel ignores the high half as well.
 */
public final class SocketFilterProgram {
    private SocketFilterProgram() {
    }

    public static final int RET_KILL_PROCESS = 0x80000000;
    public static final int RET_ERRNO = 0x00050000;
    public static final int RET_ALLOW = 0x7fff0000;

    /** Offsets in {@code struct seccomp_data}. */
    static final int OFF_NR = 0;
    static final int OFF_ARCH = 4;

    static int argLow(int i) {
        return 16 + 8 * i;
    }

    /** @throws IllegalArgumentException for rules that refuse nothing: no filter is installed then */
    public static List<Insn> build(SocketRules rules, Arch arch) {
        if (!rules.refusesAnything()) {
            throw new IllegalArgumentException("rules that refuse nothing need no filter");
        }
        Asm a = new Asm();
        a.ld(OFF_ARCH);
        a.jeq(arch.auditArch(), "nr", "kill");
        a.label("nr");
        a.ld(OFF_NR);
        if (arch.hasX32()) {
            a.jge(Arch.X32_SYSCALL_BIT, "enosys", "native");
            a.label("native");
        }
        a.jeq(arch.socket(), "socket", "uring1");
        a.label("uring1");
        a.jeq(Arch.IO_URING_SETUP, "enosys", "uring2");
        a.label("uring2");
        a.jeq(Arch.IO_URING_ENTER, "enosys", "uring3");
        a.label("uring3");
        a.jeq(Arch.IO_URING_REGISTER, "enosys", "allow");

        a.label("socket");
        a.ld(argLow(0));
        a.jeq(SocketRules.AF_UNIX, rules.unix() ? "allow" : "eacces", "notunix");
        a.label("notunix");
        if (rules.tcpOnly()) {
            a.jeq(SocketRules.AF_INET, "inet", "inet6");
            a.label("inet6");
            a.jeq(SocketRules.AF_INET6, "inet", "netlink");
            a.label("netlink");
            a.jeq(SocketRules.AF_NETLINK, "netlinkproto", "eacces");

            a.label("inet");
            a.ld(argLow(1));
            a.and(~(SocketRules.SOCK_NONBLOCK | SocketRules.SOCK_CLOEXEC));
            a.jeq(SocketRules.SOCK_STREAM, "inetproto", "eacces");
            a.label("inetproto");
            a.ld(argLow(2));
            a.jeq(SocketRules.IPPROTO_IP, "allow", "tcp");
            a.label("tcp");
            a.jeq(SocketRules.IPPROTO_TCP, "allow", "eacces");

            a.label("netlinkproto");
            a.ld(argLow(2));
            a.jeq(SocketRules.NETLINK_ROUTE, "allow", "eacces");
        } else {
            a.ja("allow");
        }

        a.label("allow");
        a.ret(RET_ALLOW);
        a.label("eacces");
        a.ret(RET_ERRNO | SocketRules.EACCES);
        a.label("enosys");
        a.ret(RET_ERRNO | SocketRules.ENOSYS);
        a.label("kill");
        a.ret(RET_KILL_PROCESS);
        return a.assemble();
    }

    /** A two-pass assembler: jumps name labels, resolved to forward offsets at the end. */
    private static final class Asm {
        private record Pending(int code, String jt, String jf, int k) {
        }

        private final List<Pending> code = new ArrayList<>();
        private final Map<String, Integer> labels = new HashMap<>();

        void label(String name) {
            if (labels.putIfAbsent(name, code.size()) != null) {
                throw new IllegalStateException("label twice: " + name);
            }
        }

        void ld(int offset) {
            code.add(new Pending(Insn.LD_W_ABS, null, null, offset));
        }

        void and(int k) {
            code.add(new Pending(Insn.ALU_AND_K, null, null, k));
        }

        void jeq(int k, String jt, String jf) {
            code.add(new Pending(Insn.JMP_JEQ_K, jt, jf, k));
        }

        void jge(int k, String jt, String jf) {
            code.add(new Pending(Insn.JMP_JGE_K, jt, jf, k));
        }

        void ja(String to) {
            code.add(new Pending(Insn.JMP_JA, to, null, 0));
        }

        void ret(int k) {
            code.add(new Pending(Insn.RET_K, null, null, k));
        }

        List<Insn> assemble() {
            List<Insn> out = new ArrayList<>(code.size());
            for (int i = 0; i < code.size(); i++) {
                Pending p = code.get(i);
                if (p.code() == Insn.JMP_JA) {
                    out.add(new Insn(p.code(), 0, 0, offset(i, p.jt())));
                } else if (p.jt() != null) {
                    out.add(new Insn(p.code(), offset(i, p.jt()), offset(i, p.jf()), p.k()));
                } else {
                    out.add(new Insn(p.code(), 0, 0, p.k()));
                }
            }
            return List.copyOf(out);
        }

        private int offset(int at, String label) {
            Integer to = labels.get(label);
            if (to == null) {
                throw new IllegalStateException("no label " + label);
            }
            int off = to - at - 1;
            if (off < 0) {
                throw new IllegalStateException("classic BPF jumps forward only: " + label);
            }
            return off;
        }
    }
}
