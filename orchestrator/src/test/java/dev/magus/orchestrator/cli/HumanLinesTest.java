package dev.magus.orchestrator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import org.junit.jupiter.api.Test;

/** The terminal line names the layers a person cannot tell from the message: kernel and audit. */
class HumanLinesTest {
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
