package dev.magus.env.proc;

import dev.magus.env.MagusVariables;
import dev.magus.events.MagusEnv;
import dev.magus.env.VariableNames;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a child gets of magus's proc-socket pointers: nothing (every op subprocess), or, for a
 * recursive magus only, the pointers re-injected as explicit overrides.
 */
public sealed interface ProcAccess {

    /** The pointers are stripped and each one present is logged (MGS2008). */
    record Withhold() implements ProcAccess {
    }

    /**
     * The command is magus's own launcher: the pointers are set to these values, whatever the
     * host or the overlay said, and each one is logged (MGS2008).
     *
     * @param pointers some of {@link MagusVariables#PROC_POINTERS} with their values
     */
    record Reinject(SortedMap<String, String> pointers) implements ProcAccess {
        public Reinject {
            TreeMap<String, String> p = new TreeMap<>();
            pointers.forEach((k, v) -> {
                if (!MagusVariables.isProcPointer(k)) {
                    throw new IllegalArgumentException(k + " is not a proc-socket pointer");
                }
                p.put(k, VariableNames.requireValue(k, v, "proc socket"));
            });
            pointers = Collections.unmodifiableSortedMap(p);
        }
    }

    static ProcAccess withhold() {
        return new Withhold();
    }

    /**
     * Re-injects the pointers {@code env} holds (magus's own process environment, usually). A
     * token is re-injected only when it is a run's ({@link MagusEnv#RUN_TOKEN_PREFIX}), never
     * the server's own, which a person's environment may hold: a recursive magus given that
     * could have the server run anything outside the domain of the run it is in.
     */
    static ProcAccess reinjectFrom(Map<String, String> env) {
        TreeMap<String, String> p = new TreeMap<>();
        for (String name : MagusVariables.PROC_POINTERS) {
            String v = env.get(name);
            if (v != null && name.equals(MagusEnv.PROC_TOKEN) && !v.startsWith(MagusEnv.RUN_TOKEN_PREFIX)) {
                continue;
            }
            if (v != null) {
                p.put(name, v);
            }
        }
        return new Reinject(p);
    }

    /**
     * The usual choice: re-inject from {@code env} when {@code recursiveMagus}, else withhold.
     * See {@link ProcSocket#isRecursiveMagus}.
     */
    static ProcAccess forCommand(boolean recursiveMagus, Map<String, String> env) {
        return recursiveMagus ? reinjectFrom(env) : withhold();
    }
}
