package dev.magus.orchestrator.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Mode;
import dev.magus.landlock.supervise.Support;
import org.junit.jupiter.api.Test;

/** Where a run asks for a supervisor the host cannot give: refused in required mode, said and skipped otherwise. */
class SupervisionTest {
    private static final Support OLD_KERNEL = new Support(false, "kernel 5.4.0 is older than 5.9");
    private static final Support OK = new Support(true, "");

    @Test
    void aHostThatCanSuperviseStartsTheSupervisor() {
        assertThat(Supervision.decide(Mode.REQUIRED, true, OK)).isInstanceOf(Supervision.Verdict.Start.class);
        assertThat(Supervision.decide(Mode.BEST_EFFORT, true, OK)).isInstanceOf(Supervision.Verdict.Start.class);
    }

    @Test
    void anOldKernelIsARefusalInRequiredModeAndANoticeInBestEffort() {
        assertThat(Supervision.decide(Mode.REQUIRED, true, OLD_KERNEL))
                .isEqualTo(new Supervision.Verdict.Refuse("kernel 5.4.0 is older than 5.9"));
        assertThat(Supervision.decide(Mode.BEST_EFFORT, true, OLD_KERNEL))
                .isEqualTo(new Supervision.Verdict.Skip("kernel 5.4.0 is older than 5.9"));
    }

    @Test
    void withoutALandlockDomainThereIsNothingToSupervise() {
        assertThat(Supervision.decide(Mode.BEST_EFFORT, false, OK))
                .isEqualTo(new Supervision.Verdict.Skip("this host has no Landlock domain for the child"));
        assertThat(Supervision.decide(Mode.OFF, false, OK))
                .isEqualTo(new Supervision.Verdict.Skip("mode off has no kernel layer to supervise"));
    }
}
