package dev.magus.events;

import java.util.Map;

/**
 * The names of the environment variables magus itself reads and writes, defined once; every
 * module names them through these constants. Which of them a child gets, and when, is
 * env-scrub's business ({@code MagusVariables}); what they mean is here.
 */
public final class MagusEnv {
    private MagusEnv() {
    }

    /** Every variable magus owns starts with this. */
    public static final String PREFIX = "MAGUS_";

    /** The mode floor a sandboxed run hands its children (off, best-effort or required). */
    public static final String SANDBOX = "MAGUS_SANDBOX";
    /** magus's cache dir, so a nested magus reads the same cache. */
    public static final String CACHE_DIR = "MAGUS_CACHE_DIR";
    /** magus's state dir, so a nested magus finds the same lease marker and job store. */
    public static final String STATE_DIR = "MAGUS_STATE_DIR";
    /**
     * The leases that narrowed a run, handed to its children so a nested magus (which cannot
     * read the state dir) is held to them.
     */
    public static final String LEASE = "MAGUS_LEASE";
    /** The run's id, set in every child: a magus that sees it non-empty is nested ({@link #nested}). */
    public static final String RUN_ID = "MAGUS_RUN_ID";
    /** The proc-socket pool's socket, for a recursive magus only. */
    public static final String PROC_SOCKET = "MAGUS_PROC_SOCKET";
    /** The token of the proc socket or the server, for a recursive magus only. */
    public static final String PROC_TOKEN = "MAGUS_PROC_TOKEN";
    /** The magus server's socket, for a recursive magus only. */
    public static final String SERVER_ADDRESS = "MAGUS_SERVER_ADDRESS";
    /**
     * {@code off}: no run is forwarded to a server and none starts one (as {@code --local} on
     * every run); unset or anything else, the default (forwarded when a server runs, and one
     * started by itself in a login session).
     */
    public static final String SERVER = "MAGUS_SERVER";
    /** How long the user's server waits with no connection before it exits ({@code 30m}, {@code 90s}, {@code never}). */
    public static final String SERVER_IDLE_TIMEOUT = "MAGUS_SERVER_IDLE_TIMEOUT";

    /**
     * Whether a process with {@code environment} runs inside a magus run: exactly when
     * {@value #RUN_ID} is set and not empty. An empty value is how a person clears it by hand
     * ({@code MAGUS_RUN_ID= magus run ...}), so it counts as unset. The one rule every module uses.
     */
    public static boolean nested(Map<String, String> environment) {
        String runId = environment.get(RUN_ID);
        return runId != null && !runId.isEmpty();
    }
}
