package dev.magus.env;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Echo;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The environment allowlist: exact variable names and prefix patterns. A pattern is a
 * prefix of at least three characters that ends in {@code _}, then a single {@code *}
 * ({@code MISE_*}). The prefix has to end at a word boundary because {@code GO*} would also
 * match {@code GOOGLE_APPLICATION_CREDENTIALS}.
 */
public record Allowlist(Set<String> names, Set<String> prefixes) {
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Pattern PREFIX_PATTERN = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*_\\*");

    public static final Allowlist EMPTY = new Allowlist(Set.of(), Set.of());

    public Allowlist {
        names = java.util.Collections.unmodifiableSet(new TreeSet<>(names));
        prefixes = java.util.Collections.unmodifiableSet(new TreeSet<>(prefixes));
    }

    /**
     * Parses declared entries. A malformed one is MGS2004 naming {@code source}: the layer and
     * key that declared it, such as {@code magus.yaml:7:9 sandbox.env.passthrough[1]}.
     */
    public static Allowlist parse(Collection<String> entries, String source) {
        List<String> exact = new ArrayList<>();
        List<String> prefix = new ArrayList<>();
        for (String e : entries) {
            if (e.endsWith("*")) {
                String p = e.substring(0, e.length() - 1);
                if (!PREFIX_PATTERN.matcher(e).matches() || p.length() < 3) {
                    throw malformed(e, source);
                }
                prefix.add(p);
            } else if (NAME.matcher(e).matches()) {
                exact.add(e);
            } else {
                throw malformed(e, source);
            }
        }
        return new Allowlist(Set.copyOf(exact), Set.copyOf(prefix));
    }

    private static SandboxException malformed(String entry, String source) {
        return new SandboxException(Diagnostic.of(Code.MGS2004,
                "malformed passthrough pattern " + Echo.quoted(entry) + ": write a variable name, or a prefix of at least"
                        + " three characters ending in '_' followed by a single '*' (MISE_*)",
                entry, Operation.NONE, Layer.POLICY, source));
    }

    public boolean permits(String variable) {
        if (names.contains(variable)) {
            return true;
        }
        for (String p : prefixes) {
            if (variable.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    public Allowlist union(Allowlist other) {
        Set<String> n = new TreeSet<>(names);
        n.addAll(other.names);
        Set<String> p = new TreeSet<>(prefixes);
        p.addAll(other.prefixes);
        return new Allowlist(n, p);
    }

    /** The entries as declared: names, then patterns with their {@code *}. */
    public List<String> entries() {
        List<String> out = new ArrayList<>(names);
        prefixes.forEach(p -> out.add(p + "*"));
        return List.copyOf(out);
    }
}
