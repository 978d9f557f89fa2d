package dev.magus.env;

import static dev.magus.events.MagusEnv.CACHE_DIR;
import static dev.magus.events.MagusEnv.LEASE;
import static dev.magus.events.MagusEnv.PROC_SOCKET;
import static dev.magus.events.MagusEnv.PROC_TOKEN;
import static dev.magus.events.MagusEnv.SANDBOX;
import static dev.magus.events.MagusEnv.SERVER_ADDRESS;
import static dev.magus.events.MagusEnv.STATE_DIR;

import java.util.List;
import java.util.Set;

/**
 * The variables magus itself owns in a child's environment (their names are
 * {@link dev.magus.events.MagusEnv}'s), as sets. The scrub never counts them as
 * dropped: a later stage of {@code childEnv} decides each of them (TMPDIR is replaced, the
 * floor is written, the proc-socket pointers are withheld or re-injected).
 */
public final class MagusVariables {
    private MagusVariables() {
    }

    /** Replaced by the run's private temp dir under a policy. */
    public static final String TMPDIR = "TMPDIR";

    /** magus's pool pointers, withheld from every op subprocess in every mode. */
    public static final List<String> PROC_POINTERS = List.of(PROC_SOCKET, PROC_TOKEN, SERVER_ADDRESS);

    /** Written after the overlay under a policy so a target cannot weaken them. */
    public static final List<String> FLOOR = List.of(SANDBOX, CACHE_DIR, STATE_DIR);

    /** Every name a later stage of childEnv decides. */
    public static final Set<String> OWNED = Set.of(
            SANDBOX, CACHE_DIR, STATE_DIR, LEASE, TMPDIR, PROC_SOCKET, PROC_TOKEN, SERVER_ADDRESS);

    /**
     * How a run's own token starts: the one kind of {@code MAGUS_PROC_TOKEN} a recursive magus
     * is given. The server's token lets its holder run anything outside every run's domain; a
     * run's token only lets the server know which run a request comes from.
     */
    public static final String RUN_TOKEN_PREFIX = "run-";

    public static boolean isProcPointer(String name) {
        return PROC_SOCKET.equals(name) || PROC_TOKEN.equals(name) || SERVER_ADDRESS.equals(name);
    }
}
