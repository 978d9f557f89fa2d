package dev.magus.landlock.seccomp;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The classic BPF program of {@link SocketRules} and {@link SetidModes} for one {@link Arch}: a
 * pure function from the rules to the instruction list, which the launcher copies into a
 * {@code sock_fprog}. Plain return values only (no user notification): ALLOW, ERRNO(EACCES) for
 * a refused socket, ERRNO(EPERM) for a set-user-ID or set-group-ID mode and for an ioctl that
 * pushes input into a terminal ({@link TerminalInjection}), ERRNO(ENOSYS) for
 * {@code io_uring}, {@code openat2} and x32 calls, KILL_PROCESS for another architecture.
 *
 * <p>The arguments are read as their low 32 bits ({@code seccomp_data.args[i]} is 64 bits,
 * little endian on both architectures): {@code socket}'s three are C {@code int}s, open flags
 * are an {@code int} and a mode a {@code umode_t}, and the kernel ignores the high half as well.
 * A call the filter does not name costs one comparison per named call.
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

    /**
     * The program: the architecture check, then one comparison per filtered call number, then
     * one block per argument check. Every confined child gets it, whatever its socket rules:
     * the {@link SetidModes} rule refuses something always.
     */
    public static List<Insn> build(SocketRules rules, Arch arch) {
        Asm a = new Asm();
        a.ld(OFF_ARCH);
        a.jeq(arch.auditArch(), "nr", "kill");
        a.label("nr");
        a.ld(OFF_NR);
        if (arch.hasX32()) {
            a.jge(Arch.X32_SYSCALL_BIT, "enosys", "native");
            a.label("native");
        }
        // The calls by number, each comparison falling through to the next.
        List<Call> calls = new ArrayList<>(List.of(
                new Call(arch.socket(), rules.refusesAnything() ? "socket" : "allow"),
                new Call(Arch.IO_URING_SETUP, "enosys"),
                new Call(Arch.IO_URING_ENTER, "enosys"),
                new Call(Arch.IO_URING_REGISTER, "enosys"),
                new Call(Arch.OPENAT2, "enosys"),
                new Call(arch.openat(), "openat"),
                new Call(arch.fchmod(), "mode1"),
                new Call(arch.fchmodat(), "mode2"),
                new Call(Arch.FCHMODAT2, "mode2"),
                new Call(arch.mknodat(), "mode2"),
                new Call(arch.open(), "open"),
                new Call(arch.creat(), "mode1"),
                new Call(arch.chmod(), "mode1"),
                new Call(arch.mknod(), "mode1"),
                new Call(arch.ioctl(), "ioctl")));
        calls.removeIf(c -> c.nr() == Arch.NONE);
        for (int i = 0; i < calls.size(); i++) {
            boolean last = i + 1 == calls.size();
            a.jeq(calls.get(i).nr(), calls.get(i).to(), last ? "allow" : "c" + (i + 1));
            if (!last) {
                a.label("c" + (i + 1));
            }
        }

        // openat(dirfd, path, flags, mode) and open(path, flags, mode): the mode counts only
        // when the call creates.
        a.label("openat");
        a.ld(argLow(2));
        a.jset(SetidModes.O_CREAT | SetidModes.O_TMPFILE_BIT, "mode3", "allow");
        a.label("mode3");
        a.ld(argLow(3));
        a.jset(SetidModes.SETID_BITS, "eperm", "allow");
        if (arch.open() != Arch.NONE) {
            a.label("open");
            a.ld(argLow(1));
            a.jset(SetidModes.O_CREAT | SetidModes.O_TMPFILE_BIT, "mode2", "allow");
        }
        a.label("mode2");
        a.ld(argLow(2));
        a.jset(SetidModes.SETID_BITS, "eperm", "allow");
        a.label("mode1");
        a.ld(argLow(1));
        a.jset(SetidModes.SETID_BITS, "eperm", "allow");

        // ioctl(fd, request, arg): the request is an unsigned int to the kernel.
        a.label("ioctl");
        a.ld(argLow(1));
        a.jeq(TerminalInjection.TIOCSTI, "eperm", "tioclinux");
        a.label("tioclinux");
        a.jeq(TerminalInjection.TIOCLINUX, "eperm", "allow");

        a.label("socket");
        if (rules.refusesAnything()) {
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
        }

        a.label("allow");
        a.ret(RET_ALLOW);
        a.label("eacces");
        a.ret(RET_ERRNO | SocketRules.EACCES);
        a.label("eperm");
        a.ret(RET_ERRNO | SetidModes.EPERM);
        a.label("enosys");
        a.ret(RET_ERRNO | SocketRules.ENOSYS);
        a.label("kill");
        a.ret(RET_KILL_PROCESS);
        return a.assemble();
    }

    private record Call(int nr, String to) {
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

        void jset(int k, String jt, String jf) {
            code.add(new Pending(Insn.JMP_JSET_K, jt, jf, k));
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
