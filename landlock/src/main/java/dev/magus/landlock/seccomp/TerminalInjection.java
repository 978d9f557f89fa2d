package dev.magus.landlock.seccomp;

import java.util.Optional;

/**
 * No confined child pushes input into a terminal. A child whose standard input is the user's
 * terminal (a run under a terminal gets it as descriptor 0) could otherwise type into it:
 * {@code ioctl(0, TIOCSTI, "c")} queues a character as if the user had typed it, read by the
 * shell once magus has ended ({@code rm -rf ~} and a newline), and {@code TIOCLINUX} can paste
 * the console's selection the same way. The child has no controlling terminal (a session of its
 * own), but the kernel lets {@code CAP_SYS_ADMIN} push into any terminal, and a root child keeps
 * it. Refused with EPERM on the request number, whatever the descriptor, as bubblewrap and
 * Flatpak refuse them; every other terminal ioctl (the window size, the modes) stays.
 */
public final class TerminalInjection {
    private TerminalInjection() {
    }

    /** {@code TIOCSTI}: push one byte into the terminal's input queue. */
    public static final int TIOCSTI = 0x5412;
    /** {@code TIOCLINUX}: the virtual console's subcommands, pasting its selection among them. */
    public static final int TIOCLINUX = 0x541C;
    public static final int EPERM = 1;

    /**
     * Why the call {@code nr(args...)} on {@code arch} is refused by this rule, empty when it is
     * not: the decision the BPF program makes, as a value. The request is read as its low 32 bits,
     * as the kernel reads it.
     */
    public static Optional<String> refusal(Arch arch, int nr, long... args) {
        if (nr != arch.ioctl() || args.length < 2) {
            return Optional.empty();
        }
        int request = (int) args[1];
        if (request == TIOCSTI) {
            return Optional.of("ioctl TIOCSTI (pushes input into a terminal)");
        }
        if (request == TIOCLINUX) {
            return Optional.of("ioctl TIOCLINUX (pastes into a terminal)");
        }
        return Optional.empty();
    }
}
