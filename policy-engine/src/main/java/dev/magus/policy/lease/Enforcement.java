package dev.magus.policy.lease;

/**
 * How the kernel's rules for one write glob compare with the glob itself. The binding layer
 * always checks the glob exactly; this says what a child process, which only the kernel
 * confines, can do.
 */
public enum Enforcement {
    /** The kernel grants exactly what the glob covers ({@code src/**} with {@code src/} present; an existing directory). */
    EXACT("exact"),
    /**
     * The kernel grants a directory the glob only partly covers ({@code docs/*.md}: all of
     * {@code docs/}), because Landlock grants subtrees and files that exist, and a file to be
     * created needs its directory. Within it the binding layer refines, and what a child
     * wrote there outside the glob is put back after the run (the lease audit).
     */
    WIDER("kernel grants the directory; binding checks refine within it, the after-run audit puts back the rest"),
    /**
     * The kernel grants only what exists and matches now: the directory a new match would need
     * is the checkout root (or missing), and granting it would undo the narrowing. A child
     * cannot create new matches there (nor replace a matched file by renaming over it); magus's
     * own bindings can.
     */
    NARROWER("kernel grants existing matches only; creating new ones is refused to children");

    private final String label;

    Enforcement(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
