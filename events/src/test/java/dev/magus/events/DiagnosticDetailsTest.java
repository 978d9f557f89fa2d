package dev.magus.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

class DiagnosticDetailsTest {
    private static final Diagnostic D = Diagnostic.of(Code.MGS2003, "child environment rebuilt", "", Operation.NONE,
            Layer.POLICY, "env");

    @Test
    void aCountIsANumberNotText() {
        Diagnostic d = D.withDetail(DetailKey.DROPPED, 12);
        assertThat(d.details()).containsEntry("dropped", "12");
        assertThat(d.count(DetailKey.DROPPED)).hasValue(12);
        assertThat(D.count(DetailKey.DROPPED)).isEmpty();
        assertThat(D.withDetail(DetailKey.DROPPED, "twelve").count(DetailKey.DROPPED)).isEmpty();
    }

    @Test
    void namesAreReadBackAsWritten() {
        Diagnostic d = D.withNames(DetailKey.DROPPED_NAMES, List.of("AWS_SECRET_ACCESS_KEY", "ODD,NAME", "BACK\\SLASH"));
        assertThat(d.names(DetailKey.DROPPED_NAMES)).containsExactly("AWS_SECRET_ACCESS_KEY", "ODD,NAME", "BACK\\SLASH");
        // The plain case keeps the documented comma-separated spelling on the stream.
        assertThat(D.withNames(DetailKey.DROPPED_NAMES, List.of("A", "B")).details()).containsEntry("dropped_names", "A,B");
        assertThat(D.names(DetailKey.DROPPED_NAMES)).isEmpty();
        assertThat(D.withNames(DetailKey.DROPPED_NAMES, List.of()).names(DetailKey.DROPPED_NAMES)).isEmpty();
    }

    @Property
    void anyNonEmptyNamesRoundTrip(@ForAll @Size(min = 1, max = 8) List<@StringLength(min = 1, max = 6) String> names) {
        assertThat(D.withNames(DetailKey.SCRUBBED, names).names(DetailKey.SCRUBBED)).containsExactlyElementsOf(names);
    }

    @Test
    void typedAccessorsReadTheSameMapTheStreamCarries() {
        Diagnostic d = D.withDetail(DetailKey.ALLOW_YAML, "sandbox: {}");
        assertThat(d.has(DetailKey.ALLOW_YAML)).isTrue();
        assertThat(d.detail(DetailKey.ALLOW_YAML)).contains("sandbox: {}");
        assertThat(d.details()).containsEntry("allow_yaml", "sandbox: {}");
        assertThat(d.detail(DetailKey.REPEAT)).isEmpty();
    }

    @Test
    void everyKeyIsSpelledOnce() {
        assertThat(new HashSet<>(Arrays.stream(DetailKey.values()).map(DetailKey::key).toList()))
                .hasSize(DetailKey.values().length);
    }
}
