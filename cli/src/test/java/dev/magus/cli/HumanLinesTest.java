package dev.magus.cli;

import dev.magus.events.DetailKey;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.policy.DenialAdvice;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which diagnostics a person sees without {@code -v}, and the layers the line names (kernel and audit). */
class HumanLinesTest {

    private static Diagnostic denial(String cls) {
        return new Diagnostic(Code.MGS2002, "write denied: /proc/self/coredump_filter", "/proc/self/coredump_filter",
                Operation.WRITE, Layer.KERNEL, "audit", Map.of(DetailKey.CLASS.key(), cls));
    }

    @Test
    void a_benign_runtime_probe_shows_only_with_verbose() {
        assertThat(HumanLines.shown(denial("benign"), false)).isFalse();
        assertThat(HumanLines.shown(denial("benign"), true)).isTrue();
    }

    @Test
    void every_other_denial_shows() {
        assertThat(HumanLines.shown(denial("attack"), false)).isTrue();
        assertThat(HumanLines.shown(denial("hint"), false)).isTrue();
    }

    @Test
    void anAuditFindingSaysSo() {
        Diagnostic d = Diagnostic.of(Code.MGS2002, "write to a control file: .envrc was created during the run; removed again",
                "/ws/.envrc", Operation.WRITE, Layer.AUDIT, "audit");
        assertThat(HumanLines.line(d)).isEqualTo("magus: MGS2002 write to a control file: .envrc was created during the run;"
                + " removed again [audit]; see 'magus explain MGS2002'");
    }

    @Test
    void bindingAndPolicyLinesCarryNoTag() {
        Diagnostic d = Diagnostic.of(Code.MGS2002, "write denied: /x", "/x", Operation.WRITE, Layer.BINDING, "binding");
        assertThat(HumanLines.line(d)).doesNotContain("[");
    }
}
