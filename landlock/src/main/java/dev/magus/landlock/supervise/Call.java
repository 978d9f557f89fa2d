package dev.magus.landlock.supervise;

import dev.magus.events.Operation;
import dev.magus.landlock.seccomp.Arch;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The calls a supervised child's filter hands to the supervisor: those that name a path or an
 * address, and where in their arguments the path and its directory are.
 *
 * @param x86     the number on x86_64 ({@link Arch#NONE}: none)
 * @param aarch64 the number on aarch64 ({@link Arch#NONE}: none)
 * @param op      what the call does to its paths; READ for the opens, whose flags decide
 * @param paths   pairs of (directory argument or -1 for the working directory, path argument)
 * @param flags   the argument holding open flags (-1: none; for {@code openat2} its {@code how})
 */
public enum Call {
    OPEN(2, Arch.NONE, Operation.READ, new int[] {-1, 0}, 1),
    CREAT(85, Arch.NONE, Operation.WRITE, new int[] {-1, 0}, -1),
    OPENAT(257, 56, Operation.READ, new int[] {0, 1}, 2),
    OPENAT2(437, 437, Operation.READ, new int[] {0, 1}, 2),
    EXECVE(59, 221, Operation.EXEC, new int[] {-1, 0}, -1),
    EXECVEAT(322, 281, Operation.EXEC, new int[] {0, 1}, -1),
    MKDIR(83, Arch.NONE, Operation.WRITE, new int[] {-1, 0}, -1),
    MKDIRAT(258, 34, Operation.WRITE, new int[] {0, 1}, -1),
    RMDIR(84, Arch.NONE, Operation.WRITE, new int[] {-1, 0}, -1),
    UNLINK(87, Arch.NONE, Operation.WRITE, new int[] {-1, 0}, -1),
    UNLINKAT(263, 35, Operation.WRITE, new int[] {0, 1}, -1),
    RENAME(82, Arch.NONE, Operation.WRITE, new int[] {-1, 0, -1, 1}, -1),
    RENAMEAT(264, 38, Operation.WRITE, new int[] {0, 1, 2, 3}, -1),
    RENAMEAT2(316, 276, Operation.WRITE, new int[] {0, 1, 2, 3}, -1),
    LINK(86, Arch.NONE, Operation.WRITE, new int[] {-1, 1}, -1),
    LINKAT(265, 37, Operation.WRITE, new int[] {2, 3}, -1),
    SYMLINK(88, Arch.NONE, Operation.WRITE, new int[] {-1, 1}, -1),
    SYMLINKAT(266, 36, Operation.WRITE, new int[] {1, 2}, -1),
    TRUNCATE(76, 45, Operation.WRITE, new int[] {-1, 0}, -1),
    CHMOD(90, Arch.NONE, Operation.WRITE, new int[] {-1, 0}, -1),
    FCHMODAT(268, 53, Operation.WRITE, new int[] {0, 1}, -1),
    FCHMODAT2(Arch.FCHMODAT2, Arch.FCHMODAT2, Operation.WRITE, new int[] {0, 1}, -1),
    CONNECT(42, 203, Operation.CONNECT, new int[0], -1),
    BIND(49, 200, Operation.BIND, new int[0], -1);

    public static final int O_WRONLY = 01;
    public static final int O_RDWR = 02;
    public static final int O_CREAT = 0100;
    public static final int O_TRUNC = 01000;
    /** An {@code O_PATH} open reads nothing, and Landlock checks none. */
    public static final int O_PATH = 010000000;

    private final int x86;
    private final int aarch64;
    private final Operation op;
    private final List<Integer> paths;
    private final int flags;

    Call(int x86, int aarch64, Operation op, int[] paths, int flags) {
        this.x86 = x86;
        this.aarch64 = aarch64;
        this.op = op;
        this.paths = Arrays.stream(paths).boxed().toList();
        this.flags = flags;
    }

    public int number(Arch arch) {
        return arch == Arch.X86_64 ? x86 : aarch64;
    }

    /** Every call's number on {@code arch}, in declaration order. */
    public static int[] numbers(Arch arch) {
        return Arrays.stream(values()).mapToInt(c -> c.number(arch)).filter(n -> n != Arch.NONE).toArray();
    }

    /** The call {@code nr} is on {@code arch}. */
    public static Optional<Call> of(Arch arch, int nr) {
        for (Call c : values()) {
            if (c.number(arch) == nr) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }

    /** {@link #of} without a search: the calls of one architecture by number. */
    static final class Table {
        private final Call[] byNumber;

        Table(Arch arch) {
            int max = Arrays.stream(numbers(arch)).max().orElse(0);
            byNumber = new Call[max + 1];
            for (Call c : values()) {
                int n = c.number(arch);
                if (n >= 0 && n != Arch.NONE) {
                    byNumber[n] = c;
                }
            }
        }

        Optional<Call> of(int nr) {
            return Optional.ofNullable(at(nr));
        }

        /** {@link #of}, null for none. */
        Call at(int nr) {
            return nr >= 0 && nr < byNumber.length ? byNumber[nr] : null;
        }
    }

    /** How many paths the call names. */
    public int pathCount() {
        return paths.size() / 2;
    }

    /** The argument of path {@code i}'s directory, -1 for the working directory. */
    public int dirArg(int i) {
        return paths.get(2 * i);
    }

    public int pathArg(int i) {
        return paths.get(2 * i + 1);
    }

    /** The argument holding open flags, -1 when the call has none. */
    public int flagsArg() {
        return flags;
    }

    public boolean isNetwork() {
        return op == Operation.CONNECT || op == Operation.BIND;
    }

    /**
     * What the call does, given its open flags (ignored by a call without them): empty for an
     * {@code O_PATH} open, which touches nothing Landlock checks.
     */
    public Optional<Operation> operation(long openFlags) {
        return Optional.ofNullable(operationOrNull(openFlags));
    }

    /** {@link #operation}, null for empty. */
    Operation operationOrNull(long openFlags) {
        if (flags < 0) {
            return op;
        }
        if ((openFlags & O_PATH) != 0) {
            return null;
        }
        return (openFlags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) != 0 ? Operation.WRITE : Operation.READ;
    }
}
