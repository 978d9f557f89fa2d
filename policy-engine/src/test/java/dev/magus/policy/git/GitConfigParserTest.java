package dev.magus.policy.git;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class GitConfigParserTest {

    private static List<Optional<String>> values(String text, String section, String sub, String key) throws Exception {
        return GitConfigParser.parse(text).values().getOrDefault(ConfigKey.of(section, sub, key), List.of());
    }

    @Test
    void sectionsSubsectionsAndTheLegacyForm() throws Exception {
        String t = "[core]\n\tbare = false\n[remote \"Origin\"]\n\turl = /x\n[Branch.Main]\n\tremote = Origin\n";
        assertThat(values(t, "core", null, "bare")).containsExactly(Optional.of("false"));
        assertThat(values(t, "remote", "Origin", "url")).containsExactly(Optional.of("/x"));
        assertThat(values(t, "remote", "origin", "url")).as("a quoted subsection keeps its case").isEmpty();
        assertThat(values(t, "branch", "main", "remote")).as("the legacy form is lower-cased")
                .containsExactly(Optional.of("Origin"));
    }

    @Test
    void keysIgnoreCaseAndAKeyWithoutValueIsTrue() throws Exception {
        String t = "[CORE]\n  HooksPath = /evil\n[x]\nflag\n";
        assertThat(values(t, "core", null, "hookspath")).containsExactly(Optional.of("/evil"));
        assertThat(values(t, "x", null, "flag")).containsExactly(Optional.empty());
    }

    @Test
    void quotesEscapesContinuationsAndComments() throws Exception {
        String t = "[a]\n"
                + "k1 = \"  two  spaces \" ; comment\n"
                + "k2 = one \\\n  two # comment\n"
                + "k3 = tab\\there \\\"q\\\" back\\\\slash\n"
                + "k4 = \"semi;colon # hash\"\n"
                + "k5 = a   b   \n";
        assertThat(values(t, "a", null, "k1")).containsExactly(Optional.of("  two  spaces "));
        assertThat(values(t, "a", null, "k2")).containsExactly(Optional.of("one   two"));
        assertThat(values(t, "a", null, "k3")).containsExactly(Optional.of("tab\there \"q\" back\\slash"));
        assertThat(values(t, "a", null, "k4")).containsExactly(Optional.of("semi;colon # hash"));
        assertThat(values(t, "a", null, "k5")).containsExactly(Optional.of("a   b"));
    }

    @Test
    void aKeyOnTheHeaderLineAndEscapedSubsections() throws Exception {
        String t = "[core] fsmonitor = x\n[includeIf \"gitdir:/a\\\"b\"]\npath = y\r\n";
        ParsedGitConfig p = GitConfigParser.parse(t);
        assertThat(p.entries().get(0).inline()).isTrue();
        assertThat(values(t, "core", null, "fsmonitor")).containsExactly(Optional.of("x"));
        assertThat(values(t, "includeif", "gitdir:/a\"b", "path")).containsExactly(Optional.of("y"));
    }

    @Test
    void multiValuedKeysKeepTheirOrder() throws Exception {
        String t = "[remote \"o\"]\nfetch = a\n[remote \"o\"]\nfetch = b\n";
        assertThat(values(t, "remote", "o", "fetch")).containsExactly(Optional.of("a"), Optional.of("b"));
    }

    @Test
    void whatGitRefusesIsMalformed() {
        for (String bad : List.of("key = v\n", "[a]\n1x = y\n", "[a\n", "[a \"b]\n", "[a]\nk = \"open\n",
                "[a]\nk = \\q\n", "[a]\nk ; no equals\n", "[a.b \"c\"]\n")) {
            assertThatThrownBy(() -> GitConfigParser.parse(bad)).as(bad).isInstanceOf(GitConfigParser.Malformed.class);
        }
    }
}
