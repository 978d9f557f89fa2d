package dev.magus.orchestrator.git;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The harmless part of a user's global git configuration, for confined children.
 *
 * <p>{@code ~/.gitconfig} stays outside every grant: it holds credential helpers, tokens in
 * {@code url.*.insteadOf} and {@code http.*.extraHeader}, and commands git runs
 * ({@code core.sshCommand}, {@code core.fsmonitor}). But git dies when its global config
 * exists and cannot be read, and with it every build step that calls git. So a confined
 * child gets {@code GIT_CONFIG_GLOBAL} pointing at a file in the run's private temp dir that
 * holds only keys on this allowlist: identity and behaviour, never a secret, a URL rewrite,
 * an include, or a command.
 */
public final class SafeGitConfig {
    /** Exact keys kept, lower case as {@code git config --list} prints them. */
    static final Set<String> KEPT = Set.of(
            "user.name", "user.email",
            "core.autocrlf", "core.eol", "core.filemode", "core.ignorecase", "core.precomposeunicode",
            "core.quotepath", "core.symlinks", "core.whitespace", "core.safecrlf", "core.abbrev",
            "core.longpaths", "core.untrackedcache",
            "init.defaultbranch", "color.ui", "pull.rebase", "pull.ff", "push.default",
            "push.autosetupremote", "fetch.prune", "merge.conflictstyle", "diff.algorithm",
            "diff.renames", "rebase.autosquash", "rebase.autostash", "log.date",
            "advice.detachedhead", "status.showuntrackedfiles", "safe.directory", "commit.verbose",
            "tag.sort", "branch.sort", "rerere.enabled", "feature.manyfiles", "index.version",
            "gc.auto", "protocol.version");

    /**
     * Prefixes kept: git-lfs's filter driver, whose commands carry no secret and run confined
     * like everything else the child starts; dropping them would break checkouts of LFS files.
     */
    static final List<String> KEPT_PREFIXES = List.of("filter.lfs.");

    private final Map<String, List<String>> entries;

    private SafeGitConfig(Map<String, List<String>> entries) {
        this.entries = entries;
    }

    /** Keeps the allowed entries of {@code key=value} pairs, in their order; repeated keys stay repeated. */
    public static SafeGitConfig filter(List<Map.Entry<String, String>> userEntries) {
        Map<String, List<String>> kept = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : userEntries) {
            String key = e.getKey().toLowerCase(Locale.ROOT);
            if (allowed(key)) {
                kept.computeIfAbsent(key, k -> new ArrayList<>()).add(e.getValue());
            }
        }
        return new SafeGitConfig(kept);
    }

    static boolean allowed(String key) {
        if (KEPT.contains(key)) {
            return true;
        }
        for (String p : KEPT_PREFIXES) {
            if (key.startsWith(p) && key.indexOf('.', p.length()) < 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * Parses the output of {@code git config --global --list -z}: records end in NUL, a
     * record is the key, a newline, and the value (no newline for a key without a value).
     */
    public static List<Map.Entry<String, String>> parseListZ(String output) {
        List<Map.Entry<String, String>> out = new ArrayList<>();
        for (String record : output.split("\0")) {
            if (record.isEmpty()) {
                continue;
            }
            int nl = record.indexOf('\n');
            String key = nl < 0 ? record : record.substring(0, nl);
            String value = nl < 0 ? "true" : record.substring(nl + 1);
            out.add(Map.entry(key, value));
        }
        return out;
    }

    public Map<String, List<String>> entries() {
        return entries;
    }

    /** The file's text in git's own format, every value quoted. */
    public String render() {
        StringBuilder sb = new StringBuilder("# Written by magus for one confined run: the harmless keys of your git config.\n");
        Map<String, List<String[]>> bySection = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> e : entries.entrySet()) {
            String key = e.getKey();
            int first = key.indexOf('.');
            int last = key.lastIndexOf('.');
            String section = first == last
                    ? key.substring(0, first)
                    : key.substring(0, first) + " \"" + quote(key.substring(first + 1, last)) + "\"";
            for (String v : e.getValue()) {
                bySection.computeIfAbsent(section, s -> new ArrayList<>()).add(new String[] {key.substring(last + 1), v});
            }
        }
        bySection.forEach((section, kvs) -> {
            sb.append('[').append(section).append("]\n");
            for (String[] kv : kvs) {
                sb.append('\t').append(kv[0]).append(" = \"").append(quote(kv[1])).append("\"\n");
            }
        });
        return sb.toString();
    }

    private static String quote(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n").replace("\t", "\\t");
    }
}
