package dev.magus.landlock.launch;

/**
 * The name a launch thread gives itself right before it creates a child's Landlock domain.
 * The kernel's audit record of a domain names its creator by process id and thread name; the
 * process is magus for every spawn, so this name, unique per spawn within the process, is
 * what tells the audit reader which spawn (and so which run) a domain belongs to, even when
 * the child has exited before its records are read.
 */
public final class DomainTag {
    /** What every tag starts with; the rest is the spawn's number in base 36. */
    public static final String PREFIX = "magus-d";

    private DomainTag() {
    }

    /** The tag of spawn {@code n}: at most 15 bytes, the kernel's limit for a thread name. */
    static String of(long n) {
        String tag = PREFIX + Long.toString(n, 36);
        if (tag.length() > 15) {
            // 36^8 spawns in one process: start again rather than be truncated by the kernel.
            return PREFIX + Long.toString(n % (36L * 36 * 36 * 36 * 36 * 36 * 36 * 36), 36);
        }
        return tag;
    }
}
