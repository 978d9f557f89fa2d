package dev.magus.policy.decl;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads a spell's or a target's declaration from plain values: the object a spell's
 * {@code mgs_getSandbox()} returns, or the {@code sandbox} key of a target's policy once a
 * JSON reader has made maps and lists of it.
 *
 * <pre>
 * {"allow": [{"env": "FIXTURES_DIR", "base": "xdgData", "path": "fixtures", "mode": "rw"}],
 *  "env": {"passthrough": ["FIXTURES_DIR"]}}
 * </pre>
 *
 * Anything it cannot honor is MGS2004 naming the layer and the key
 * ({@code target:test sandbox.allow[0].mode}): an unknown key (a {@code mode} included: the
 * mode is the workspace's alone), a value of the wrong type, and everything
 * {@link SandboxAllow} and {@link SandboxEnv} refuse.
 */
public final class DeclReader {
    private static final Set<String> SECTION_KEYS = Set.of("allow", "env", "network");
    private static final Set<String> ENV_KEYS = Set.of("passthrough");

    private DeclReader() {
    }

    /**
     * @param sandbox the declaration: a map with {@code allow} and {@code env}, both optional
     * @param layer   the spell or target (or workspace) that declared it; its label is the origin
     */
    public static SandboxDecl read(Map<String, ?> sandbox, DeclLayer layer) {
        String origin = layer.label();
        keys(sandbox, SECTION_KEYS, origin, "sandbox");
        List<SandboxAllow> allow = new ArrayList<>();
        Object allowValue = sandbox.get("allow");
        if (allowValue != null) {
            List<?> entries = list(allowValue, origin, "sandbox.allow");
            for (int i = 0; i < entries.size(); i++) {
                String key = "sandbox.allow[" + i + "]";
                Map<?, ?> entry = map(entries.get(i), origin, key);
                keys(entry, Set.copyOf(SandboxAllow.KEYS), origin, key);
                Site site = Site.of(origin, key);
                allow.add(SandboxAllow.declare(
                        text(entry, "name", site), text(entry, "env", site), text(entry, "base", site),
                        text(entry, "path", site), text(entry, "mode", site), layer, site));
            }
        }
        SandboxEnv env = SandboxEnv.EMPTY;
        Object envValue = sandbox.get("env");
        if (envValue != null) {
            Map<?, ?> envMap = map(envValue, origin, "sandbox.env");
            keys(envMap, ENV_KEYS, origin, "sandbox.env");
            Object pass = envMap.get("passthrough");
            if (pass != null) {
                List<?> raw = list(pass, origin, "sandbox.env.passthrough");
                List<String> entries = new ArrayList<>();
                for (int i = 0; i < raw.size(); i++) {
                    if (!(raw.get(i) instanceof String s)) {
                        throw Mgs2004.at(Site.of(origin, "sandbox.env"), "passthrough[" + i + "]",
                                "a passthrough entry must be a variable name or PREFIX_* pattern, not " + describe(raw.get(i)));
                    }
                    entries.add(s);
                }
                env = SandboxEnv.parse(entries, Site.of(origin, "sandbox.env"));
            }
        }
        NetworkDecl network = NetworkDecl.EMPTY;
        Object networkValue = sandbox.get("network");
        if (networkValue != null) {
            network = network(map(networkValue, origin, "sandbox.network"), layer);
        }
        return new SandboxDecl(allow, env, network, layer);
    }

    /**
     * {@code network}: {@code allow} (hosts), {@code ports} and {@code bind} (numbers); a
     * {@code mode} here is MGS2004, since the mode is the workspace's alone.
     */
    private static NetworkDecl network(Map<?, ?> network, DeclLayer layer) {
        String origin = layer.label();
        keys(network, Set.copyOf(NetworkDecl.KEYS), origin, "sandbox.network");
        Site site = Site.of(origin, "sandbox.network");
        Optional<String> mode = text(network, "mode", site);
        Object unixValue = network.get("unix");
        Optional<List<String>> unix = unixValue == null ? Optional.empty()
                : Optional.of(unixValue instanceof List<?> ? words(unixValue, origin, "unix") : List.of(String.valueOf(unixValue)));
        return NetworkDecl.declare(mode, words(network.get("allow"), origin, "allow"), words(network.get("ports"), origin, "ports"),
                words(network.get("bind"), origin, "bind"), unix, layer, site);
    }

    /** A list of strings or numbers, as text; absent is empty. */
    private static List<String> words(Object value, String origin, String key) {
        if (value == null) {
            return List.of();
        }
        List<?> raw = list(value, origin, "sandbox.network." + key);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < raw.size(); i++) {
            Object v = raw.get(i);
            if (!(v instanceof String || v instanceof Number)) {
                throw Mgs2004.at(Site.of(origin, "sandbox.network"), key + "[" + i + "]",
                        "sandbox.network." + key + "[" + i + "] must be a single value, not " + describe(v));
            }
            out.add(String.valueOf(v));
        }
        return out;
    }

    private static void keys(Map<?, ?> map, Set<String> allowed, String origin, String at) {
        for (Object k : map.keySet()) {
            if (!(k instanceof String name) || !allowed.contains(name)) {
                throw Mgs2004.at(Site.of(origin, at), String.valueOf(k), "unknown key '" + k + "' in " + at
                        + " (expected " + String.join(", ", new TreeSet<>(allowed)) + ")");
            }
        }
    }

    private static Optional<String> text(Map<?, ?> entry, String field, Site site) {
        Object v = entry.get(field);
        if (v == null) {
            return Optional.empty();
        }
        if (v instanceof String s) {
            return Optional.of(s);
        }
        throw Mgs2004.at(site, field, site.subject(field) + " must be a string, not " + describe(v));
    }

    private static List<?> list(Object v, String origin, String key) {
        if (v instanceof List<?> l) {
            return l;
        }
        throw Mgs2004.at(Site.of(origin, key), "", key + " must be a list, not " + describe(v));
    }

    private static Map<?, ?> map(Object v, String origin, String key) {
        if (v instanceof Map<?, ?> m) {
            return m;
        }
        throw Mgs2004.at(Site.of(origin, key), "", key + " must be an object, not " + describe(v));
    }

    private static String describe(Object v) {
        if (v instanceof Map) {
            return "an object";
        }
        if (v instanceof List) {
            return "a list";
        }
        return "'" + v + "'";
    }
}
