package dev.magus.orchestrator.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.DetailKey;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which diagnostics {@code --fail-on-denial} fails a run on, and the status it then ends with. */
class DenialStatusTest {
    private static Diagnostic of(Code code, String cls) {
        return new Diagnostic(code, "denied", "/x", Operation.READ, Layer.KERNEL, "inferred",
                cls.isEmpty() ? Map.of() : Map.of(DetailKey.CLASS.key(), cls));
    }

    @Test
    void everyRefusedAccessOfTheChildCountsAKnownProbeDoesNot() {
        for (Code c : new Code[] {Code.MGS2001, Code.MGS2002, Code.MGS2007, Code.MGS2013, Code.MGS2015}) {
            assertThat(DenialStatus.counts(of(c, "hint"))).as(c.name()).isTrue();
            assertThat(DenialStatus.counts(of(c, ""))).as(c.name()).isTrue();
            assertThat(DenialStatus.counts(of(c, "benign"))).as(c.name()).isFalse();
        }
        assertThat(DenialStatus.counts(of(Code.MGS2002, "hint").withDetail(DetailKey.QUIET.key(), "true")))
                .as("a tool's silent probe, not said by the tool").isFalse();
        assertThat(DenialStatus.counts(of(Code.MGS2001, "hint").withDetail(DetailKey.REPEAT.key(), "2"))).isTrue();
        assertThat(DenialStatus.counts(of(Code.MGS2001, "attack").withDetail(DetailKey.DECISION.key(), "allow-once"))).isFalse();
        assertThat(DenialStatus.counts(of(Code.MGS2001, "attack").withDetail(DetailKey.DECISION.key(), "allow-for-run")))
                .isFalse();
        assertThat(DenialStatus.counts(of(Code.MGS2001, "attack").withDetail(DetailKey.DECISION.key(), "deny"))).isTrue();
        assertThat(DenialStatus.counts(of(Code.MGS2007, "hint").withDetail(DetailKey.DECISION.key(), "not-approvable")))
                .isTrue();
        assertThat(DenialStatus.counts(of(Code.MGS2003, ""))).isFalse();
        assertThat(DenialStatus.counts(of(Code.MGS2004, ""))).isFalse();
        assertThat(DenialStatus.counts(of(Code.MGS2014, ""))).isFalse();
    }

    @Test
    void onlyACleanExitAfterADenialBecomesThree() {
        assertThat(DenialStatus.status(true, true, 0, 0)).isEqualTo(3);
        assertThat(DenialStatus.status(false, true, 0, 0)).isZero();
        assertThat(DenialStatus.status(true, false, 0, 0)).isZero();
        assertThat(DenialStatus.status(true, true, 1, 0)).isEqualTo(1);
        assertThat(DenialStatus.status(true, true, 143, 15)).isEqualTo(143);
    }
}
