package dev.magus.env;

import java.util.List;
import java.util.Set;

/**
 * The variables magus itself owns in a child's environment. The scrub never counts them as
 * dropped: a later stage of {@code childEnv} decides each of them (TMPDIR is replaced, the
 * floor is written, the proc-socket pointers are withheld or re-injected).
 */
public final class MagusVariables {
    private MagusVariables() {
    }

    /** The mode floor a sandboxed run hands its children. */
    public static final String SANDBOX = "MAGUS_SANDBOX";
    /** magus's cache dir, so a nested magus reads the same cache. */
    public static final String CACHE_DIR = "MAGUS_CACHE_DIR";
    /** magus's state dir, so a nested magus finds the same lease marker and job store. */
    public static final String STATE_DIR = "MAGUS_STATE_DIR";
    /**
     * The leases that narrowed a run, handed to its children so a nested magus (which cannot
     * read the state dir) is held to them; written, or removed, after the overlay.
     */
    public static final String LEASE = "MAGUS_LEASE";
    /** Replaced by the run's private temp dir under a policy. */
    public static final String TMPDIR = "TMPDIR";

    public static final String PROC_SOCKET = "MAGUS_PROC_SOCKET";
    public static final String PROC_TOKEN = "MAGUS_PROC_TOKEN";
    public static final String SERVER_ADDRESS = "MAGUS_SERVER_ADDRESS";

    /** magus's pool pointers, withheld from every op subprocess in every mode. */
    public static final List<String> PROC_POINTERS = List.of(PROC_SOCKET, PROC_TOKEN, SERVER_ADDRESS);

    /** Written after the overlay under a policy so a target cannot weaken them. */
    public static final List<String> FLOOR = List.of(SANDBOX, CACHE_DIR, STATE_DIR);

    /** Every name a later stage of childEnv decides. */
    public static final Set<String> OWNED = Set.of(
            SANDBOX, CACHE_DIR, STATE_DIR, LEASE, TMPDIR, PROC_SOCKET, PROC_TOKEN, SERVER_ADDRESS);

    public static boolean isProcPointer(String name) {
        return PROC_SOCKET.equals(name) || PROC_TOKEN.equals(name) || SERVER_ADDRESS.equals(name);
    }
}
