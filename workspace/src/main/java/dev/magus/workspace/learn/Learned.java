package dev.magus.workspace.learn;

import dev.magus.events.DetailKey;
import dev.magus.events.Diagnostic;
import dev.magus.policy.AllowHint;
import dev.magus.policy.DenialAdvice;
import dev.magus.policy.Policy;
import dev.magus.policy.fs.AccessMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a run's denials teach: the fewest {@code sandbox.allow} entries that allow every denial
 * a safe hint exists for ({@link DenialAdvice}, through the diagnostics' {@code allow_path} and
 * {@code allow_mode}), and the accesses that look like an attack, listed and never added.
 * Benign probes are counted only.
 *
 * @param additions the entries to add, each path once with the union of its modes, none under
 *                  another entry that already covers it
 * @param attacks   one line per attack-like access: {@code <op> <path>: <why>}
 * @param benign    how many known harmless probes were seen
 * @param byHand    network and socket refusals (MGS2013, MGS2015) with the declaration that
 *                  would allow them, one line each: outside {@code sandbox.allow}, so never
 *                  written, only shown
 */
public record Learned(List<Addition> additions, List<String> attacks, int benign, List<String> byHand) {

    public Learned {
        additions = List.copyOf(additions);
        attacks = List.copyOf(attacks);
        byHand = List.copyOf(byHand);
    }

    public Learned(List<Addition> additions, List<String> attacks, int benign) {
        this(additions, attacks, benign, List.of());
    }

    /**
     * One entry to add.
     *
     * @param path    as written in {@code magus.yaml} ({@code ~/...} under home)
     * @param mode    {@code ro}, {@code rw}, {@code rx} or {@code rwx}
     * @param because the denials it allows, one line each ({@code MGS2001 read ~/.cache/x/a})
     * @param missing the path does not exist yet (a rule for it is skipped until it does)
     */
    public record Addition(String path, String mode, List<String> because, boolean missing) {
        public Addition {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(mode, "mode");
            because = List.copyOf(because);
        }

        /** The list item, indented by {@code indent}, with its reasons as comments above it. */
        public List<String> yaml(String indent) {
            List<String> out = new ArrayList<>();
            for (String b : because) {
                out.add(indent + "# magus learn: " + commentText(b));
            }
            if (missing) {
                out.add(indent + "# " + commentText(path) + " does not exist yet: create it first, a rule for a missing path is"
                        + " skipped");
            }
            out.add(indent + "- path: " + AllowHint.scalar(path));
            out.add(indent + "  mode: " + mode);
            return out;
        }
    }

    /**
     * Text a child chose (a path it printed, a denial's subject) made safe to sit in a YAML
     * comment: every character that could end the comment line for a YAML parser (any control
     * character, CR, NEL, LS, PS) becomes '?', so nothing after it can become configuration.
     */
    static String commentText(String text) {
        StringBuilder b = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            b.append(Character.isISOControl(c) || c == 0x2028 || c == 0x2029 ? '?' : c);
        }
        return b.toString();
    }

    /** The lesson of these diagnostics (any others than kernel or binding denials are ignored). */
    public static Learned from(List<Diagnostic> diagnostics) {
        Map<String, AccessMode> modes = new LinkedHashMap<>();
        Map<String, Set<String>> because = new LinkedHashMap<>();
        Set<String> missing = new LinkedHashSet<>();
        Set<String> attacks = new LinkedHashSet<>();
        Set<String> byHand = new LinkedHashSet<>();
        int benign = 0;
        for (Diagnostic d : diagnostics) {
            String cls = d.details().getOrDefault(DetailKey.CLASS.key(), "");
            if ((d.code() == dev.magus.events.Code.MGS2013 || d.code() == dev.magus.events.Code.MGS2015)
                    && cls.equals("hint") && d.details().containsKey(DetailKey.ALLOW_YAML.key())) {
                byHand.add(d.code() + " " + commentText(d.subject()) + ": "
                        + commentText(d.details().get(DetailKey.ALLOW_YAML.key()).strip().replaceAll("\\n\\s*", " / ")));
                continue;
            }
            switch (cls) {
                case "hint" -> {
                    String path = d.details().get(DetailKey.ALLOW_PATH.key());
                    String mode = d.details().get(DetailKey.ALLOW_MODE.key());
                    if (path == null || mode == null || AccessMode.parseDeclared(mode).isEmpty()) {
                        continue;
                    }
                    modes.merge(path, AccessMode.parseDeclared(mode).get(), AccessMode::union);
                    because.computeIfAbsent(path, k -> new LinkedHashSet<>()).add(d.code() + " " + d.operation().label()
                            + " " + d.subject());
                    if ("true".equals(d.details().get(DetailKey.ALLOW_MISSING.key()))) {
                        missing.add(path);
                    }
                }
                case "attack" -> attacks.add(d.operation().label() + " " + d.subject() + ": "
                        + d.details().getOrDefault(DetailKey.ATTACK.key(), "looks like an attack"));
                case "benign" -> benign++;
                default -> {
                }
            }
        }
        List<Addition> out = new ArrayList<>();
        for (Map.Entry<String, AccessMode> e : modes.entrySet()) {
            if (coveredByAnother(e.getKey(), e.getValue(), modes)) {
                continue;
            }
            List<String> why = new ArrayList<>(because.get(e.getKey()));
            // What the dropped narrower entries allowed is allowed here now: say so too.
            for (Map.Entry<String, AccessMode> n : modes.entrySet()) {
                if (!n.getKey().equals(e.getKey()) && under(n.getKey(), e.getKey()) && e.getValue().covers(n.getValue())) {
                    why.addAll(because.get(n.getKey()));
                }
            }
            out.add(new Addition(e.getKey(), e.getValue().declared(), why, missing.contains(e.getKey())));
        }
        return new Learned(out, new ArrayList<>(attacks), benign, new ArrayList<>(byHand));
    }

    private static boolean coveredByAnother(String path, AccessMode mode, Map<String, AccessMode> all) {
        for (Map.Entry<String, AccessMode> o : all.entrySet()) {
            if (!o.getKey().equals(path) && under(path, o.getKey()) && o.getValue().covers(mode)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code path} is {@code dir} or beneath it, component-wise. */
    static boolean under(String path, String dir) {
        return Path.of(path).normalize().startsWith(Path.of(dir).normalize());
    }

    /**
     * The additions judged by {@link GrantReview}: what {@code --write} adds, what it adds only
     * with {@code --force}, and what it never adds.
     *
     * @param safe   of a kind known to be safe
     * @param review each with the reason it needs a person's review
     * @param never  each with the reason it is never proposed
     */
    public record Reviewed(List<Addition> safe, List<Judged> review, List<Judged> never) {
        public Reviewed {
            safe = List.copyOf(safe);
            review = List.copyOf(review);
            never = List.copyOf(never);
        }

        /** What {@code --write} adds: the safe ones, and with {@code force} those that need review too. */
        public List<Addition> toWrite(boolean force) {
            List<Addition> out = new ArrayList<>(safe);
            if (force) {
                review.forEach(j -> out.add(j.addition()));
            }
            return out;
        }
    }

    /** An addition and why it is not written by itself. */
    public record Judged(Addition addition, String why) {
        public Judged {
            Objects.requireNonNull(addition, "addition");
            Objects.requireNonNull(why, "why");
        }
    }

    /** These additions judged on {@code context}. */
    public Reviewed reviewed(GrantReview.Context context) {
        List<Addition> safe = new ArrayList<>();
        List<Judged> review = new ArrayList<>();
        List<Judged> never = new ArrayList<>();
        for (Addition a : additions) {
            GrantReview.Verdict v = GrantReview.review(a.path(), a.mode(), context);
            if (v instanceof GrantReview.Verdict.Safe) {
                safe.add(a);
            } else if (v instanceof GrantReview.Verdict.NeedsReview) {
                review.add(new Judged(a, v.why()));
            } else {
                never.add(new Judged(a, v.why()));
            }
        }
        return new Reviewed(safe, review, never);
    }

    /** Whether nothing is to be added. */
    public boolean empty() {
        return additions.isEmpty();
    }

    /** The additions as a snippet that pastes into {@code magus.yaml}. */
    public String snippet() {
        StringBuilder sb = new StringBuilder("sandbox:\n  allow:\n");
        for (Addition a : additions) {
            a.yaml("    ").forEach(l -> sb.append(l).append('\n'));
        }
        return sb.toString();
    }
}
