package dev.magus.cli.ui;

import dev.magus.events.DetailKey;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.RunEvent;
import dev.magus.landlock.denials.stream.KernelDenialStream;
import java.util.List;
import org.jline.utils.AttributedString;
import org.jline.utils.AttributedStringBuilder;
import org.jline.utils.AttributedStyle;
import org.junit.jupiter.api.Test;

/** Every denial counted, distinct ones listed once; magus's lines wrapped at spaces. */
class ViewCountsTest {

    private static RunEvent.Diag repeat(RunEvent.Diag d, int n) {
        return new RunEvent.Diag(d.runId(), d.at(), d.diagnostic().withDetail(DetailKey.REPEAT.key(), Integer.toString(n)));
    }

    @Test
    void repeats_are_counted_but_listed_once() {
        ViewReducer reducer = new ViewReducer(5);
        ViewState s = reducer.initial(List.of("sh"), ViewReducerTest.T0);
        RunEvent.Diag creds = ViewReducerTest.denial(Code.MGS2001, Operation.READ, Layer.KERNEL, "/h/.aws/credentials", "");
        RunEvent.Diag cache = ViewReducerTest.denial(Code.MGS2001, Operation.READ, Layer.KERNEL, "/h/.cache/t", "");
        s = reducer.apply(s, creds);
        s = reducer.apply(s, cache);
        for (int i = 2; i <= 12; i++) {
            s = reducer.apply(s, repeat(i % 2 == 0 ? creds : cache, i / 2 + 1));
        }
        assertThat(s.deniedTotal()).isEqualTo(13);
        assertThat(s.distinct()).isEqualTo(2);
        assertThat(s.denials()).hasSize(2);
        assertThat(s.count(Code.MGS2001)).isEqualTo(13);
        assertThat(ViewTextTest.text(ViewText.status(s)).get(1)).contains("denials 13 distinct 2");
    }

    @Test
    void a_long_line_is_cut_at_spaces_with_its_style_and_a_word_longer_than_a_row_only_where_it_must() {
        AttributedString line = new AttributedStringBuilder().style(AttributedStyle.BOLD)
                .append("magus: MGS2001 read denied: ~/.cache/some-tool/with/a/long/path is outside every read rule;"
                        + " see 'magus explain MGS2001'")
                .toAttributedString();
        List<AttributedString> rows = ViewText.wrap(line, 40);
        assertThat(rows).allSatisfy(r -> assertThat(r.columnLength()).isLessThanOrEqualTo(40));
        assertThat(String.join(" ", rows.stream().map(r -> r.toString().strip()).toList())).isEqualTo(line.toString());
        assertThat(rows.subList(1, rows.size())).allSatisfy(r -> assertThat(r.toString()).startsWith("    "));
        assertThat(rows.get(0).styleAt(0)).isEqualTo(AttributedStyle.BOLD);
        assertThat(ViewText.wrap(line, 200)).containsExactly(line);
        assertThat(ViewText.wrap(new AttributedString("x".repeat(50)), 20)).extracting(AttributedString::toString)
                .containsExactly("x".repeat(20), "    " + "x".repeat(16), "    " + "x".repeat(14));
    }
}
