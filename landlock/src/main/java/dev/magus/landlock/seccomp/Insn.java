package dev.magus.landlock.seccomp;

/**
 * One classic BPF instruction, {@code struct sock_filter}: 16-bit opcode, the two jump
 * offsets (unsigned bytes, counted from the next instruction) and the constant.
 */
public record Insn(int code, int jt, int jf, int k) {
    public static final int LD_W_ABS = 0x20;
    public static final int ALU_AND_K = 0x54;
    public static final int JMP_JA = 0x05;
    public static final int JMP_JEQ_K = 0x15;
    public static final int JMP_JGE_K = 0x35;
    public static final int JMP_JSET_K = 0x45;
    public static final int RET_K = 0x06;

    public Insn {
        if (code < 0 || code > 0xffff) {
            throw new IllegalArgumentException("opcode " + code);
        }
        if (jt < 0 || jt > 255 || jf < 0 || jf > 255) {
            throw new IllegalArgumentException("jump offset out of range: " + jt + "/" + jf);
        }
    }
}
