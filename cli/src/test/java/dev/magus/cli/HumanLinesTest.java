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
    void quiet_leaves_refusals_and_denials_only_and_verbose_everything() {
        Diagnostic notice = Diagnostic.of(Code.MGS2003, "child environment rebuilt", "", Operation.NONE, Layer.POLICY, "env");
        Diagnostic hint = Diagnostic.of(Code.MGS2006, "pyenv shim on PATH", "", Operation.NONE, Layer.POLICY, "env");
        Diagnostic refusal = Diagnostic.of(Code.MGS2004, "unknown access mode", "", Operation.NONE, Layer.POLICY, "--allow");
        assertThat(HumanLines.shown(notice, false, true)).isFalse();
        assertThat(HumanLines.shown(hint, false, true)).isFalse();
        assertThat(HumanLines.shown(refusal, false, true)).isTrue();
        assertThat(HumanLines.shown(denial("hint"), false, true)).isTrue();
        assertThat(HumanLines.shown(denial("benign"), false, true)).as("a known probe stays a -v line").isFalse();
        assertThat(HumanLines.shown(notice, true, true)).as("-v shows everything").isTrue();
        assertThat(PrintedLines.INSTANCE.diagnostic(notice, false, true)).isEmpty();
        assertThat(PrintedLines.INSTANCE.diagnostic(notice, false, false)).isPresent();
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

    private static Diagnostic asked(String decision, String said) {
        return new Diagnostic(Code.MGS2001, "read denied: ~/.aws/credentials is outside every read rule (asked: " + said + ")",
                "/home/u/.aws/credentials", Operation.READ, Layer.KERNEL, "supervisor", Map.of(DetailKey.DECISION.key(), decision));
    }

    @Test
    void an_access_approved_through_ask_is_said_approved_not_denied() {
        assertThat(HumanLines.line(asked("allow-once", "allow-once"))).isEqualTo(
                "magus: MGS2001 read approved once: ~/.aws/credentials is outside every read rule [kernel];"
                        + " see 'magus explain MGS2001'");
        assertThat(HumanLines.line(asked("allow-for-run", "allow-for-run")))
                .contains("read approved for this run: ~/.aws/credentials is outside every read rule [kernel]")
                .doesNotContain("denied").doesNotContain("asked:");
        assertThat(HumanLines.line(asked("allow-once", "allow-once; magus's own open failed: No such file or directory")))
                .contains("read approved once: ~/.aws/credentials is outside every read rule (magus's own open failed: No such");
    }

    @Test
    void a_denied_or_unanswered_ask_stays_a_denial() {
        assertThat(HumanLines.line(asked("deny", "deny"))).contains("read denied: ").contains("(asked: deny)");
        assertThat(HumanLines.line(asked("timeout", "timeout"))).contains("read denied: ").contains("(asked: timeout)");
        assertThat(HumanLines.line(denial("hint"))).contains("write denied: ");
    }
}
