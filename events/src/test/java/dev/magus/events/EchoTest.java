package dev.magus.events;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EchoTest {
    @Test
    void aShortPlainValueIsQuotedAsItIs() {
        assertThat(Echo.quoted("best-effort")).isEqualTo("'best-effort'");
        assertThat(Echo.quoted("répertoire/ü")).isEqualTo("'répertoire/ü'");
    }

    @Test
    void aLongValueIsCutWithAnEllipsisAndItsLength() {
        String mb = "a".repeat(1 << 20);
        String q = Echo.quoted(mb);
        assertThat(q).isEqualTo("'" + "a".repeat(Echo.MAX) + "…' (1048576 characters)");
    }

    @Test
    void exactlyTheLimitIsNotCut() {
        assertThat(Echo.quoted("b".repeat(Echo.MAX))).isEqualTo("'" + "b".repeat(Echo.MAX) + "'");
    }

    @Test
    void aCutNeverSplitsASurrogatePair() {
        String emoji = "\uD83D\uDE00".repeat(200);
        String q = Echo.quoted(emoji);
        assertThat(q).startsWith("'" + "\uD83D\uDE00".repeat(Echo.MAX) + "…'").endsWith("(200 characters)");
    }

    @Test
    void controlCharactersAreShownNeverSent() {
        assertThat(Echo.visible("\u001b[2J\rok\n\t\u0000\u007f\u0085")).isEqualTo("\\x1b[2J\\rok\\n\\t\\x00\\x7f\\x85");
        assertThat(Echo.visible("evil\u202etxt.exe\u2028")).isEqualTo("evil\\u202etxt.exe\\u2028");
        assertThat(Echo.quoted("\u001b]0;title\u0007")).isEqualTo("'\\x1b]0;title\\x07'");
    }
}
