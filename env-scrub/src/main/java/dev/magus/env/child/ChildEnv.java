package dev.magus.env.child;

import dev.magus.events.DetailKey;
import dev.magus.events.MagusEnv;
import dev.magus.env.MagusVariables;
import dev.magus.env.proc.ProcSocket;
import dev.magus.env.scrub.Scrubbed;
import dev.magus.env.shim.ShimHints;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code childEnv}: the one code path every child environment goes through, with or without a
 * policy. Pure: the host environment is only read, so runs may share one host map at once.
 *
 * <p>Under a policy, in order: the scrub keeps the baseline and the passthrough of the host
 * environment; the run's overlay ({@code env\set}, <code>env&#92;unset</code>); the floor
 * ({@code MAGUS_SANDBOX=<effective mode>}, {@code MAGUS_CACHE_DIR}, {@code MAGUS_STATE_DIR},
 * {@code TMPDIR} = the run's private temp dir), after the overlay so a target cannot weaken it;
 * last, the proc-socket pointers withheld, or re-injected for a recursive magus. Under mode off
 * only the overlay (over the whole process environment) and the last stage run, and no
 * {@code MAGUS_SANDBOX} is written: a child's value can only raise its own mode, so one the
 * process or the overlay carries passes through untouched.
 */
public final class ChildEnv {
    public static final String SOURCE = "childEnv";

    private ChildEnv() {
    }

    public static ChildEnvironment childEnv(Map<String, String> host, ChildEnvRequest request) {
        if (request instanceof ChildEnvRequest.Sandboxed s) {
            return sandboxed(host, s);
        }
        return off(host, (ChildEnvRequest.Off) request);
    }

    private static ChildEnvironment off(Map<String, String> host, ChildEnvRequest.Off request) {
        TreeMap<String, String> env = new TreeMap<>(host);
        overlay(env, request);
        ProcSocket.Outcome proc = ProcSocket.apply(env, request.procAccess());
        return new ChildEnvironment(proc.env(), host.size(), 0, proc.diagnostics());
    }

    private static ChildEnvironment sandboxed(Map<String, String> host, ChildEnvRequest.Sandboxed request) {
        Scrubbed scrubbed = request.scrubber().scrub(host);
        TreeMap<String, String> env = new TreeMap<>(scrubbed.kept());
        overlay(env, request);
        // After the overlay: the specification replaces TMPDIR, and a target pointing it at a
        // shared temp dir would only make its own writes fail there.
        env.put(MagusVariables.TMPDIR, request.dirs().privateTemp().toString());
        env.put(MagusEnv.SANDBOX, request.mode().spelling());
        env.put(MagusEnv.CACHE_DIR, request.dirs().cacheDir().toString());
        env.put(MagusEnv.STATE_DIR, request.dirs().stateDir().toString());
        ProcSocket.Outcome proc = ProcSocket.apply(env, request.procAccess());

        List<Diagnostic> diags = new ArrayList<>(proc.diagnostics().size() + 2);
        if (scrubbed.dropped() > 0) {
            diags.add(dropped(scrubbed.dropped(), host.keySet().stream().filter(n -> !scrubbed.kept().containsKey(n))
                    .sorted().toList()));
        }
        diags.addAll(ShimHints.of(host, proc.env(), request.managers()));
        diags.addAll(proc.diagnostics());
        return new ChildEnvironment(proc.env(), scrubbed.kept().size(), scrubbed.dropped(), diags);
    }

    private static void overlay(TreeMap<String, String> env, ChildEnvRequest request) {
        request.overlay().unsets().forEach(env::remove);
        env.putAll(request.overlay().sets());
    }

    /**
     * The count in the message: a name can be a secret's tell, a value is the secret. The
     * names are a detail, which the terminal shows only at {@code -v}, for a person who wants
     * to know which variable a tool missed.
     */
    private static Diagnostic dropped(int count, java.util.List<String> names) {
        String message = "child environment rebuilt from the allowlist: " + count
                + (count == 1 ? " variable" : " variables")
                + " dropped; if the build needs one, add it to sandbox.env.passthrough";
        return Diagnostic.of(Code.MGS2003, message, "", Operation.NONE, Layer.POLICY, SOURCE)
                .withDetail(DetailKey.DROPPED, count)
                .withNames(DetailKey.DROPPED_NAMES, names);
    }
}
