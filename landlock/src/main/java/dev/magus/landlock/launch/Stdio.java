package dev.magus.landlock.launch;

/** What a child's descriptors 0, 1 and 2 are. */
public enum Stdio {
    /** Three pipes to magus; the child runs in a session of its own, without a terminal. */
    PIPES,
    /** Standard input is {@code /dev/null}; output and error are pipes; own session. */
    NULL_INPUT,
    /**
     * The child inherits magus's own 0, 1 and 2 and stays in magus's session and process
     * group, so it can use the terminal. For explicitly interactive runs only: a child with a
     * terminal can inject input into it, and {@link Child#killGroup} signals only the child.
     */
    INHERIT
}
