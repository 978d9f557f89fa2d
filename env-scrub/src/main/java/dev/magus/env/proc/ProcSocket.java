package dev.magus.env.proc;

import dev.magus.events.DetailKey;
import dev.magus.env.MagusVariables;
import dev.magus.events.MagusEnv;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The last stage of every child environment, in every mode including off: anything that can
 * drive the proc socket can ask magus to run work outside the caller's confinement, so the
 * pointers never reach an op subprocess. The one exception is magus re-executing itself.
 */
public final class ProcSocket {
    public static final String SOURCE = "childEnv";

    private ProcSocket() {
    }

    /**
     * Whether {@code resolvedCommand} is magus's own launcher. Both paths should already be
     * resolved (symlinks followed) by the caller; this compares them lexically after
     * normalization and touches no file system.
     */
    public static boolean isRecursiveMagus(Path resolvedCommand, Path launcher) {
        return resolvedCommand.normalize().equals(launcher.normalize());
    }

    /** The environment with the pointers decided, and one MGS2008 per pointer withheld or re-injected. */
    public record Outcome(SortedMap<String, String> env, List<Diagnostic> diagnostics) {
        public Outcome {
            env = Collections.unmodifiableSortedMap(new TreeMap<>(env));
            diagnostics = List.copyOf(diagnostics);
        }
    }

    /**
     * Applies {@code access} to {@code env} (the child environment built so far, only read).
     * Diagnostics name the variable, never its value.
     */
    public static Outcome apply(Map<String, String> env, ProcAccess access) {
        TreeMap<String, String> out = new TreeMap<>(env);
        Map<String, String> reinject = access instanceof ProcAccess.Reinject r ? r.pointers() : Map.of();
        List<Diagnostic> diags = new ArrayList<>(3);
        boolean served = servedRun(env);
        for (String name : MagusVariables.PROC_POINTERS) {
            String had = out.remove(name);
            String value = reinject.get(name);
            if (served && SERVED_POINTERS.contains(name)) {
                // The server's own business, as it is the server's in the run it forwarded: the same
                // run started without a server has no such pointer, and so no line for it.
                if (value != null) {
                    out.put(name, value);
                }
            } else if (value != null) {
                out.put(name, value);
                diags.add(Diagnostic.of(Code.MGS2008,
                        "re-injected " + name + " for a recursive magus, which coordinates through the proc socket",
                        name, Operation.NONE, Layer.POLICY, SOURCE).withDetail(DetailKey.ACTION, "re-injected"));
            } else if (had != null) {
                diags.add(Diagnostic.of(Code.MGS2008,
                        "withheld " + name + " from the child: magus's proc-socket pointers never reach an op subprocess",
                        name, Operation.NONE, Layer.POLICY, SOURCE).withDetail(DetailKey.ACTION, "withheld"));
            }
        }
        return new Outcome(out, diags);
    }

    /** The pointers a server puts into the environment of a run it forwarded. */
    private static final List<String> SERVED_POINTERS = List.of(MagusEnv.SERVER_ADDRESS, MagusEnv.PROC_TOKEN);

    /** Whether {@code env} is a forwarded run's: it holds that run's token, which only a server mints. */
    private static boolean servedRun(Map<String, String> env) {
        String token = env.get(MagusEnv.PROC_TOKEN);
        return token != null && token.startsWith(MagusVariables.RUN_TOKEN_PREFIX);
    }
}
