package dev.magus.env.shim;

import dev.magus.events.DetailKey;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * MGS2006: a version manager's shim stays reachable on PATH while the variable it reads to
 * pick a tool version was scrubbed, so the shim falls back to a system tool silently instead
 * of failing loudly. Every manager a spell knows is covered ({@link ShimManager#KNOWN} for the
 * built-in spells: mise, asdf, pyenv, nvm, sdkman, and whatever a workspace's spells add);
 * direnv hooks the shell prompt rather than PATH, so it is not part of this heuristic.
 */
public final class ShimHints {
    public static final String SOURCE = "childEnv";

    private ShimHints() {
    }

    /**
     * @param host     the host environment the child was built from
     * @param child    the child environment as handed over
     * @param managers the version managers to look for, one hint each at most, in this order
     */
    public static List<Diagnostic> of(Map<String, String> host, Map<String, String> child, List<ShimManager> managers) {
        String path = child.get("PATH");
        if (path == null || path.isEmpty()) {
            return List.of();
        }
        List<String> entries = entries(path);
        List<Diagnostic> out = new ArrayList<>(2);
        for (ShimManager m : managers) {
            hint(m, host, child, entries).ifPresent(out::add);
        }
        return List.copyOf(out);
    }

    private static Optional<Diagnostic> hint(ShimManager m, Map<String, String> host, Map<String, String> child,
            List<String> entries) {
        Optional<String> shim = shimDir(entries, m, m.root().map(host::get));
        if (shim.isEmpty()) {
            return Optional.empty();
        }
        TreeSet<String> scrubbed = new TreeSet<>();
        for (String name : host.keySet()) {
            if (m.selects(name) && !child.containsKey(name)) {
                scrubbed.add(name);
            }
        }
        if (scrubbed.isEmpty()) {
            return Optional.empty();
        }
        String subject = m.selectors().stream().filter(scrubbed::contains).findFirst().orElse(scrubbed.first());
        List<String> passthrough = m.advice().isEmpty() ? List.copyOf(scrubbed) : m.advice();
        return Optional.of(hint(m, shim.get(), scrubbed, subject, passthrough));
    }

    private static Diagnostic hint(ShimManager m, String shimDir, TreeSet<String> scrubbed, String subject,
                                   List<String> passthrough) {
        String list = String.join(", ", passthrough);
        String message = m.name() + " shims are on PATH (" + shimDir + ") but " + String.join(", ", scrubbed)
                + (scrubbed.size() == 1 ? " was" : " were")
                + " scrubbed, so a shim silently falls back to a system tool; "
                // Passing the variables alone is not enough when nothing grants the manager's
                // installs: the shim stays unreadable and the fallback goes on, only unreported.
                + m.spell().map(s -> "bind the spell " + s + " in magus.yaml's projects (it grants " + m.name()
                        + "'s installs and passes its variables), or add to sandbox.env.passthrough: [" + list
                        + "] and allow those installs rx yourself")
                        .orElse("add to sandbox.env.passthrough: [" + list + "]");
        String yaml = "sandbox:\n  env:\n    passthrough: [" + list + "]\n";
        Diagnostic d = Diagnostic.of(Code.MGS2006, message, subject, Operation.NONE, Layer.POLICY, SOURCE)
                .withDetail(DetailKey.MANAGER, m.name())
                .withDetail(DetailKey.SHIM_DIR, shimDir)
                .withNames(DetailKey.SCRUBBED, List.copyOf(scrubbed))
                .withDetail(DetailKey.YAML, yaml);
        return m.spell().map(s -> d.withDetail(DetailKey.SPELL, s)).orElse(d);
    }

    /**
     * The first PATH entry that is the manager's: by its conventional marker, or under the
     * directory the host named in the manager's root variable.
     */
    private static Optional<String> shimDir(List<String> entries, ShimManager m, Optional<String> rootValue) {
        Optional<String> custom = rootValue.filter(v -> !v.isEmpty()).map(v -> trim(v.replace('\\', '/')) + "/" + m.underRoot());
        for (String e : entries) {
            String n = trim(e.replace('\\', '/'));
            if (m.marks(n)) {
                return Optional.of(e);
            }
            if (custom.isPresent()) {
                String c = custom.get();
                if (c.endsWith("/") ? n.startsWith(c) && n.length() > c.length() : n.equals(trim(c))) {
                    return Optional.of(e);
                }
            }
        }
        return Optional.empty();
    }

    /**
     * Splits on both ':' and ';' so one heuristic serves every platform; a Windows drive
     * letter split off by ':' cannot end in a shim suffix, so it does no harm.
     */
    private static List<String> entries(String path) {
        List<String> out = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= path.length(); i++) {
            if (i == path.length() || path.charAt(i) == ':' || path.charAt(i) == ';') {
                if (i > start) {
                    out.add(path.substring(start, i));
                }
                start = i + 1;
            }
        }
        return out;
    }

    private static String trim(String p) {
        int end = p.length();
        while (end > 1 && p.charAt(end - 1) == '/') {
            end--;
        }
        return p.substring(0, end);
    }
}
