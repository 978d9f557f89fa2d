package dev.magus.landlock.launch;

/** What a child's descriptors 0, 1 and 2 are. */
public sealed interface Stdio permits Stdio.Standard, Stdio.InputFrom {
    /** Three pipes to magus; the child runs in a session of its own, without a terminal. */
    Stdio PIPES = Standard.PIPES;
    /** Standard input is {@code /dev/null}; output and error are pipes; own session. */
    Stdio NULL_INPUT = Standard.NULL_INPUT;
    /**
     * The child inherits magus's own 0, 1 and 2 and stays in magus's session and process
     * group, so it can use the terminal. For explicitly interactive runs only: a child with a
     * terminal can inject input into it, and {@link Child#killGroup} signals only the child.
     */
    Stdio INHERIT = Standard.INHERIT;

    /**
     * {@code fd} as the child's standard input when it is one a command reads
     * ({@link InputDescriptors}), else {@link #PIPES}, for the caller to copy what it reads of
     * {@code fd} into the pipe (a device such as {@code /dev/zero}; a directory, which then reads
     * as an empty input).
     */
    static Stdio inputFrom(int fd) {
        return InputDescriptors.refusal(fd).isEmpty() ? new InputFrom(fd) : PIPES;
    }

    /** The kinds that need no descriptor of the caller's. */
    enum Standard implements Stdio {
        PIPES, NULL_INPUT, INHERIT
    }

    /**
     * Standard input is {@code fd} itself (a terminal, a pipe, a file: whatever the caller holds),
     * not a copy through magus; output and error are pipes, since denial inference reads them; own
     * session, so a terminal given this way is not the child's controlling terminal. The spawn
     * duplicates {@code fd}; the caller keeps it and closes it when it likes, the child's copy
     * staying the child's. A terminal's input cannot be pushed into by the child (the seccomp
     * filter's {@code TerminalInjection} rule, for a confined child).
     */
    record InputFrom(int fd) implements Stdio {
        public InputFrom {
            if (fd < 0) {
                throw new IllegalArgumentException("not a descriptor: " + fd);
            }
        }
    }
}
