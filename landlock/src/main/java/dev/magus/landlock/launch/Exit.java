package dev.magus.landlock.launch;

/**
 * How a child ended: its exit code, or the signal that killed it.
 *
 * @param code   the exit code (0..255) when it exited; 0 when a signal ended it
 * @param signal the signal that ended it, or 0
 */
public record Exit(int code, int signal) {
    public Exit {
        if (code < 0 || code > 255 || signal < 0 || (signal > 0 && code != 0)) {
            throw new IllegalArgumentException("exit code " + code + ", signal " + signal);
        }
    }

    /** The shell's convention, which magus run adopts: the code, or 128+N for signal N. */
    public int status() {
        return signal > 0 ? 128 + signal : code;
    }

    public boolean signalled() {
        return signal > 0;
    }

    /** Decodes a {@code waitpid} status word. */
    public static Exit fromWaitStatus(int status) {
        int low = status & 0x7f;
        if (low == 0) {
            return new Exit((status >> 8) & 0xff, 0);
        }
        return new Exit(0, low);
    }
}
