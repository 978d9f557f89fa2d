package dev.magus.landlock.launch;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import dev.magus.landlock.seccomp.Arch;
import dev.magus.landlock.seccomp.Insn;
import dev.magus.landlock.seccomp.NotifyFilterProgram;
import dev.magus.landlock.seccomp.SocketFilterProgram;
import dev.magus.landlock.seccomp.SocketRules;
import dev.magus.landlock.supervise.Call;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * A {@link SocketFilterProgram} (sockets and set-user-ID modes) in native memory as {@code struct sock_fprog}, which a launch
 * thread hands to {@code prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ...)}. There are four
 * possible programs per architecture, so each is built once and kept for the life of the
 * process: no launch can outlive the memory it reads.
 */
final class SeccompFilter {
    /** {@code sizeof(struct sock_fprog)}: a 16-bit length, padding, the pointer. */
    private static final int FPROG_BYTES = 16;
    private static final int INSN_BYTES = 8;
    private static final ConcurrentMap<SocketRules, SeccompFilter> BUILT = new ConcurrentHashMap<>();

    /** Kept for the life of the process, as the socket programs are. */
    private static volatile SeccompFilter supervised;

    private final Memory memory;
    final int length;

    private SeccompFilter(List<Insn> program) {
        this.length = program.size();
        this.memory = new Memory(FPROG_BYTES + (long) INSN_BYTES * program.size());
        memory.clear();
        long insns = Pointer.nativeValue(memory) + FPROG_BYTES;
        memory.setShort(0, (short) program.size());
        memory.setLong(8, insns);
        for (int i = 0; i < program.size(); i++) {
            Insn in = program.get(i);
            long at = FPROG_BYTES + (long) INSN_BYTES * i;
            memory.setShort(at, (short) in.code());
            memory.setByte(at + 2, (byte) in.jt());
            memory.setByte(at + 3, (byte) in.jf());
            memory.setInt(at + 4, in.k());
        }
    }

    /**
     * The {@code sock_fprog} of {@code rules} on this host's architecture. Never null: every
     * confined child gets a filter, since the set-user-ID rule ({@code SetidModes}) refuses
     * something under every socket rule.
     *
     * @throws IllegalStateException on an architecture magus does not confine on (the natives
     *                               refuse to load there first)
     */
    static Pointer of(SocketRules rules) {
        return BUILT.computeIfAbsent(rules, r -> new SeccompFilter(SocketFilterProgram.build(r, arch()))).memory;
    }

    /** The {@code sock_fprog} of a supervised child's user-notification filter ({@link Call}). */
    static Pointer supervised() {
        SeccompFilter f = supervised;
        if (f == null) {
            Arch arch = arch();
            f = new SeccompFilter(NotifyFilterProgram.build(arch, Call.numbers(arch)));
            supervised = f;
        }
        return f.memory;
    }

    private static Arch arch() {
        return Arch.host().orElseThrow(() -> new IllegalStateException("no seccomp filter for os.arch "
                + System.getProperty("os.arch")));
    }
}
