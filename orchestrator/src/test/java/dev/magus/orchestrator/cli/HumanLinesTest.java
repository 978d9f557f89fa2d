package dev.magus.orchestrator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.policy.DenialAdvice;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which diagnostics a person sees without {@code -v}. */
class HumanLinesTest {

    private static Diagnostic denial(String cls) {
        return new Diagnostic(Code.MGS2002, "write denied: /proc/self/coredump_filter", "/proc/self/coredump_filter",
                Operation.WRITE, Layer.KERNEL, "audit", Map.of(DenialAdvice.CLASS, cls));
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
}
