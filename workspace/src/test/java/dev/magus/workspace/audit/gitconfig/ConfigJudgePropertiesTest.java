package dev.magus.workspace.audit.gitconfig;

import dev.magus.policy.git.GitConfigParser;
import dev.magus.policy.git.ConfigKey;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Whatever two configs a run goes between, the judged text reads back with every harmless key
 * as the run left it and every other key as it was before.
 */
class ConfigJudgePropertiesTest {
    /** Section header, key, a harmless or dangerous mix. */
    static final List<String[]> KEYS = List.of(
            new String[] {"[core]", "bare"}, new String[] {"[core]", "fsmonitor"}, new String[] {"[core]", "hooksPath"},
            new String[] {"[remote \"origin\"]", "url"}, new String[] {"[remote \"origin\"]", "uploadpack"},
            new String[] {"[user]", "email"}, new String[] {"[alias]", "st"}, new String[] {"[filter \"x\"]", "smudge"},
            new String[] {"[include]", "path"}, new String[] {"[branch \"main\"]", "merge"},
            new String[] {"[frob]", "level"});

    record Line(int key, String value, int style) {
    }

    @Provide
    Arbitrary<List<Line>> configs() {
        Arbitrary<Line> line = Combinators.combine(Arbitraries.integers().between(0, KEYS.size() - 1),
                Arbitraries.of("x", "!sh evil", "a b", "semi;colon", "q\"uote", "back\\slash", ""),
                Arbitraries.integers().between(0, 3)).as(Line::new);
        return line.list().ofMaxSize(8);
    }

    /** One way of writing each line: plain, quoted, with a comment, or on its header's line. */
    static String render(List<Line> lines) {
        StringBuilder b = new StringBuilder();
        for (Line l : lines) {
            String[] k = KEYS.get(l.key());
            String v = l.value().replace("\\", "\\\\").replace("\"", "\\\"");
            switch (l.style()) {
                case 0 -> b.append(k[0]).append("\n\t").append(k[1]).append(" = \"").append(v).append("\"\n");
                case 1 -> b.append(k[0]).append("\n\t").append(k[1]).append(" = \"").append(v).append("\" # note\n");
                case 2 -> b.append("; a comment\n").append(k[0]).append(' ').append(k[1]).append(" = \"").append(v)
                        .append("\"\n");
                default -> b.append(k[0]).append("\r\n  ").append(k[1]).append("=\"").append(v).append("\"\r\n");
            }
        }
        return b.toString();
    }

    @Property(tries = 300)
    void harmlessKeysAsTheRunLeftThemTheRestAsBefore(@ForAll("configs") List<Line> before,
            @ForAll("configs") List<Line> after) throws Exception {
        String a = render(before);
        String b = render(after);
        ConfigJudge.Outcome o = ConfigJudge.judge(Optional.of(a), b, GitConfigKeys.Context.NONE);
        assertThat(o).isInstanceOf(ConfigJudge.Judged.class);
        ConfigJudge.Judged j = (ConfigJudge.Judged) o;
        Map<ConfigKey, List<Optional<String>>> was = GitConfigParser.parse(a).values();
        Map<ConfigKey, List<Optional<String>>> now = GitConfigParser.parse(b).values();
        Map<ConfigKey, List<Optional<String>>> left = GitConfigParser.parse(j.text()).values();
        List<ConfigKey> keys = new ArrayList<>(was.keySet());
        keys.addAll(now.keySet());
        for (ConfigKey k : keys) {
            boolean reverted = j.reverted().stream().anyMatch(c -> c.key().equals(k));
            assertThat(left.getOrDefault(k, List.of())).as(k + " in\n" + j.text())
                    .isEqualTo((reverted ? was : now).getOrDefault(k, List.of()));
        }
        assertThat(j.reverted()).allSatisfy(c -> assertThat(c.verdict()).isNotEqualTo(GitConfigKeys.Verdict.HARMLESS));
        if (!j.reverts()) {
            assertThat(j.text()).isEqualTo(b);
        }
    }
}
