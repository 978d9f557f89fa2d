package dev.magus.landlock.supervise;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.sys.Natives;
import dev.magus.landlock.sys.Syscalls;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the probe says of kernels older than ADDFD, and of a version it cannot read. */
class SupportTest {
    Syscalls sys;

    @BeforeEach
    void natives() {
        sys = Natives.syscalls();
        SupervisedChildren.assume(sys.available(), "no native calls: " + sys.unavailableReason());
        SupervisedChildren.assume(Support.probe().available(), Support.probe().reason());
    }

    @Test
    void aKernelBefore59CannotSuperviseAndSaysWhy() {
        assertThat(Support.of(sys, "5.8.18-generic")).satisfies(s -> {
            assertThat(s.available()).isFalse();
            assertThat(s.reason()).contains("5.8.18-generic").contains("older than 5.9");
        });
        assertThat(Support.of(sys, "4.19.0").available()).isFalse();
        assertThat(Support.of(sys, "5.9.0").available()).isTrue();
        assertThat(Support.of(sys, "6.18.44-fc").available()).isTrue();
    }

    @Test
    void aVersionItCannotReadIsNoSupport() {
        assertThat(Support.of(sys, "unknown")).isEqualTo(new Support(false, "unknown kernel version 'unknown'"));
    }

    @Test
    void approvalNeedsAddfdSendFrom514() {
        assertThat(Support.approvalGap("5.13.19")).hasValueSatisfying(w -> assertThat(w).contains("older than 5.14"));
        assertThat(Support.approvalGap("5.14.0")).isEmpty();
        assertThat(Support.approvalGap("6.18.44-fc")).isEmpty();
        assertThat(Support.approvalGap("unknown")).isPresent();
    }
}
