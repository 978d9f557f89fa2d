package dev.magus.workspace.audit.gitconfig;

import dev.magus.policy.git.GitConfigParser;
import dev.magus.policy.git.ParsedGitConfig;
import dev.magus.policy.git.ConfigEntry;
import dev.magus.policy.git.ConfigKey;
import dev.magus.policy.git.ConfigSection;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A config file the run changed, judged key by key ({@link GitConfigKeys}): the text to leave
 * is the run's own, with each changed key that is not harmless given back the values it had
 * before the run (the run's lines for it taken out, the earlier lines put back at the end of
 * the same section, or of the file under the earlier header). A section the earlier file did
 * not have loses its header when none of its keys stay. Every other byte of the run's text
 * stays as it is.
 */
public final class ConfigJudge {
    private ConfigJudge() {
    }

    /** What to do with one config file. */
    public sealed interface Outcome permits Judged, Unreadable {
    }

    /**
     * The text to leave ({@code text}, the run's own when nothing is put back) and the keys
     * kept and put back.
     */
    public record Judged(String text, List<KeyChange> kept, List<KeyChange> reverted) implements Outcome {
        public Judged {
            Objects.requireNonNull(text, "text");
            kept = List.copyOf(kept);
            reverted = List.copyOf(reverted);
        }

        public boolean reverts() {
            return !reverted.isEmpty();
        }
    }

    /** One of the texts cannot be read as git reads it: the caller puts back the whole earlier file. */
    public record Unreadable(String why) implements Outcome {
        public Unreadable {
            Objects.requireNonNull(why, "why");
        }
    }

    /**
     * @param before the text before the run; empty when there was no file (a repository the
     *               run created)
     * @param after  the run's text
     */
    public static Outcome judge(Optional<String> before, String after, GitConfigKeys.Context context) {
        ParsedGitConfig was;
        ParsedGitConfig now;
        try {
            was = GitConfigParser.parse(before.orElse(""));
        } catch (GitConfigParser.Malformed e) {
            return new Unreadable("the earlier file is not a config git reads (" + e.getMessage() + ")");
        }
        try {
            now = GitConfigParser.parse(after);
        } catch (GitConfigParser.Malformed e) {
            return new Unreadable("the run left a file git does not read as config (" + e.getMessage() + ")");
        }
        Map<ConfigKey, List<Optional<String>>> a = was.values();
        Map<ConfigKey, List<Optional<String>>> b = now.values();
        Set<ConfigKey> keys = new LinkedHashSet<>(b.keySet());
        keys.addAll(a.keySet());
        List<KeyChange> kept = new ArrayList<>();
        List<KeyChange> reverted = new ArrayList<>();
        for (ConfigKey k : keys) {
            List<Optional<String>> va = a.getOrDefault(k, List.of());
            List<Optional<String>> vb = b.getOrDefault(k, List.of());
            if (va.equals(vb)) {
                continue;
            }
            KeyChange.Kind kind = va.isEmpty() ? KeyChange.Kind.ADDED : vb.isEmpty() ? KeyChange.Kind.REMOVED
                    : KeyChange.Kind.CHANGED;
            GitConfigKeys.Verdict verdict = GitConfigKeys.Verdict.HARMLESS;
            for (Optional<String> v : vb.isEmpty() ? va : vb) {
                GitConfigKeys.Verdict one = GitConfigKeys.classify(k, v, context);
                if (one.ordinal() > verdict.ordinal()) {
                    verdict = one;
                }
            }
            KeyChange c = new KeyChange(k, kind, verdict);
            (verdict == GitConfigKeys.Verdict.HARMLESS ? kept : reverted).add(c);
        }
        if (reverted.isEmpty()) {
            return new Judged(after, kept, reverted);
        }
        String text = revert(was, now, reverted.stream().map(KeyChange::key).toList());
        // What was written must read back as meant; otherwise the whole earlier file goes back.
        try {
            Map<ConfigKey, List<Optional<String>>> check = GitConfigParser.parse(text).values();
            for (KeyChange c : reverted) {
                if (!check.getOrDefault(c.key(), List.of()).equals(a.getOrDefault(c.key(), List.of()))) {
                    return new Unreadable("putting back " + c.key() + " alone did not read back as before");
                }
            }
            for (KeyChange c : kept) {
                if (!check.getOrDefault(c.key(), List.of()).equals(b.getOrDefault(c.key(), List.of()))) {
                    return new Unreadable("keeping " + c.key() + " did not read back as the run left it");
                }
            }
        } catch (GitConfigParser.Malformed e) {
            return new Unreadable("the edited file did not read back (" + e.getMessage() + ")");
        }
        return new Judged(text, kept, reverted);
    }

    /**
     * The header lines to take out: of each section the earlier file did not have whose keys
     * are all put back, so no empty header the run added stays. A header line runs to its
     * newline, or to the end of a key written on it.
     */
    private static List<Edit> emptiedHeaders(ParsedGitConfig was, ParsedGitConfig now, List<ConfigKey> keys) {
        String t = now.text();
        List<Edit> out = new ArrayList<>();
        for (ConfigSection s : now.sections()) {
            boolean existed = was.sections().stream()
                    .anyMatch(w -> w.section().equals(s.section()) && w.subsection().equals(s.subsection()));
            List<ConfigEntry> in = now.entries().stream().filter(e -> s.start() <= e.start() && e.start() < s.end()).toList();
            if (existed || in.isEmpty() || !in.stream().allMatch(e -> keys.contains(e.key()))) {
                continue;
            }
            int nl = t.indexOf('\n', s.start());
            int end = nl < 0 || nl >= s.end() ? s.end() : nl + 1;
            for (ConfigEntry e : in) {
                if (e.inline()) {
                    end = Math.max(end, e.end());
                }
            }
            out.add(new Edit(s.start(), end, ""));
        }
        return out;
    }

    /** An edit of the run's text: remove {@code [start, end)}, then insert {@code insert} at {@code start}. */
    private record Edit(int start, int end, String insert) {
    }

    private static String revert(ParsedGitConfig was, ParsedGitConfig now, List<ConfigKey> keys) {
        String t = now.text();
        List<Edit> edits = new ArrayList<>();
        StringBuilder appended = new StringBuilder();
        List<Edit> headers = emptiedHeaders(was, now, keys);
        edits.addAll(headers);
        for (ConfigKey k : keys) {
            for (ConfigEntry e : now.entries()) {
                if (e.key().equals(k) && headers.stream().noneMatch(h -> h.start() <= e.start() && e.start() < h.end())) {
                    // An entry on its header's line keeps the line's end.
                    int end = e.inline() && e.end() > e.start() && t.charAt(e.end() - 1) == '\n'
                            ? e.end() - 1 - (e.end() - 2 >= e.start() && t.charAt(e.end() - 2) == '\r' ? 1 : 0)
                            : e.end();
                    edits.add(new Edit(e.start(), end, ""));
                }
            }
            StringBuilder lines = new StringBuilder();
            String header = null;
            for (ConfigEntry e : was.entries()) {
                if (e.key().equals(k)) {
                    String line = was.text().substring(e.start(), e.end());
                    lines.append(e.inline() ? "\t" : "").append(line);
                    if (!line.endsWith("\n")) {
                        lines.append('\n');
                    }
                    header = e.header();
                }
            }
            if (lines.length() == 0) {
                continue;
            }
            Optional<ConfigSection> target = now.sections().stream().filter(s -> s.holds(k))
                    .reduce((x, y) -> y);
            if (target.isPresent()) {
                int at = target.get().end();
                boolean newline = at == 0 || t.charAt(at - 1) == '\n';
                edits.add(new Edit(at, at, (newline ? "" : "\n") + lines));
            } else {
                appended.append(header).append('\n').append(lines);
            }
        }
        // From the back, so that earlier offsets hold; at one offset the removal goes first.
        edits.sort(Comparator.comparingInt(Edit::start).reversed()
                .thenComparing(e -> e.end() == e.start() ? 1 : 0));
        StringBuilder out = new StringBuilder(t);
        for (Edit e : edits) {
            out.replace(e.start(), e.end(), e.insert());
        }
        if (appended.length() > 0) {
            if (out.length() > 0 && out.charAt(out.length() - 1) != '\n') {
                out.append('\n');
            }
            out.append(appended);
        }
        return out.toString();
    }
}
