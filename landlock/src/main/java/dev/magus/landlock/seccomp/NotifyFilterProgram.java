package dev.magus.landlock.seccomp;

import java.util.ArrayList;
import java.util.List;

/**
 * The classic BPF program of a supervised child: {@code SECCOMP_RET_USER_NOTIF} for each named
 * call number, {@code ALLOW} for everything else (another architecture and x32 calls included:
 * the socket filter beside it refuses those). Installed with a listener, so that each named call
 * waits until magus's supervisor has read its arguments and answered.
 */
public final class NotifyFilterProgram {
    public static final int RET_USER_NOTIF = 0x7fc00000;

    private NotifyFilterProgram() {
    }

    /** The program: the architecture check, then one comparison per number, ALLOW, USER_NOTIF. */
    public static List<Insn> build(Arch arch, int[] numbers) {
        int n = numbers.length;
        if (n == 0 || n > 250) {
            throw new IllegalArgumentException("between 1 and 250 call numbers: " + n);
        }
        List<Insn> p = new ArrayList<>(n + 5);
        p.add(new Insn(Insn.LD_W_ABS, 0, 0, SocketFilterProgram.OFF_ARCH));
        p.add(new Insn(Insn.JMP_JEQ_K, 0, n + 1, arch.auditArch()));
        p.add(new Insn(Insn.LD_W_ABS, 0, 0, SocketFilterProgram.OFF_NR));
        for (int i = 0; i < n; i++) {
            // Matched: jump over the remaining comparisons and the ALLOW; else the next one.
            p.add(new Insn(Insn.JMP_JEQ_K, n - i, 0, numbers[i]));
        }
        p.add(new Insn(Insn.RET_K, 0, 0, SocketFilterProgram.RET_ALLOW));
        p.add(new Insn(Insn.RET_K, 0, 0, RET_USER_NOTIF));
        return List.copyOf(p);
    }
}
