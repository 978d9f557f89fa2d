package dev.magus.env.shim;

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
 * of failing loudly. Only PATH-shim managers (mise, asdf) are covered; direnv hooks the shell
 * prompt rather than PATH, so it is not part of this heuristic.
 */
public final class ShimHints {
    public static final String SOURCE = "childEnv";

    private ShimHints() {
    }

    /**
     * @param host  the host environment the child was built from
     * @param child the child environment as handed over
     */
    public static List<Diagnostic> of(Map<String, String> host, Map<String, String> child) {
        String path = child.get("PATH");
        if (path == null || !(path.contains("shims"))) {
            return List.of();
        }
        List<String> entries = entries(path);
        List<Diagnostic> out = new ArrayList<>(2);
        mise(host, child, entries).ifPresent(out::add);
        asdf(host, child, entries).ifPresent(out::add);
        return List.copyOf(out);
    }

    private static Optional<Diagnostic> mise(Map<String, String> host, Map<String, String> child, List<String> entries) {
        Optional<String> shim = shimDir(entries, "/mise/shims", host.get("MISE_DATA_DIR"));
        if (shim.isEmpty()) {
            return Optional.empty();
        }
        TreeSet<String> scrubbed = new TreeSet<>();
        for (String name : host.keySet()) {
            if (name.startsWith("MISE_") && !child.containsKey(name)) {
                scrubbed.add(name);
            }
        }
        if (scrubbed.isEmpty()) {
            return Optional.empty();
        }
        String subject = scrubbed.contains("MISE_DATA_DIR") ? "MISE_DATA_DIR" : scrubbed.first();
        return Optional.of(hint("mise", shim.get(), scrubbed, subject, List.of("\"MISE_*\"")));
    }

    private static Optional<Diagnostic> asdf(Map<String, String> host, Map<String, String> child, List<String> entries) {
        Optional<String> shim = shimDir(entries, "/.asdf/shims", host.get("ASDF_DATA_DIR"));
        if (shim.isEmpty()) {
            return Optional.empty();
        }
        TreeSet<String> scrubbed = new TreeSet<>();
        for (String name : List.of("ASDF_DIR", "ASDF_DATA_DIR")) {
            if (host.containsKey(name) && !child.containsKey(name)) {
                scrubbed.add(name);
            }
        }
        if (scrubbed.isEmpty()) {
            return Optional.empty();
        }
        String subject = scrubbed.contains("ASDF_DIR") ? "ASDF_DIR" : scrubbed.first();
        return Optional.of(hint("asdf", shim.get(), scrubbed, subject, List.copyOf(scrubbed)));
    }

    private static Diagnostic hint(String manager, String shimDir, TreeSet<String> scrubbed, String subject,
                                   List<String> passthrough) {
        String list = String.join(", ", passthrough);
        String message = manager + " shims are on PATH (" + shimDir + ") but " + String.join(", ", scrubbed)
                + (scrubbed.size() == 1 ? " was" : " were")
                + " scrubbed, so a shim silently falls back to a system tool; add to sandbox.env.passthrough: ["
                + list + "]";
        String yaml = "sandbox:\n  env:\n    passthrough: [" + list + "]\n";
        return Diagnostic.of(Code.MGS2006, message, subject, Operation.NONE, Layer.POLICY, SOURCE)
                .withDetail("manager", manager)
                .withDetail("shimDir", shimDir)
                .withDetail("scrubbed", String.join(",", scrubbed))
                .withDetail("yaml", yaml);
    }

    /**
     * The first PATH entry that is the manager's shim dir: by its conventional suffix, or as
     * {@code <data dir>/shims} when the host named a data dir of its own.
     */
    private static Optional<String> shimDir(List<String> entries, String suffix, String dataDir) {
        String custom = dataDir == null ? null : trim(dataDir.replace('\\', '/')) + "/shims";
        for (String e : entries) {
            String n = trim(e.replace('\\', '/'));
            if (n.endsWith(suffix) || n.equals(custom)) {
                return Optional.of(e);
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
