package dev.magus.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class ModeTest {

    @Test
    void parsesTheThreeSpellingsAndNothingElse() {
        assertThat(Mode.parse("off", "t")).isEqualTo(Mode.OFF);
        assertThat(Mode.parse("best-effort", "t")).isEqualTo(Mode.BEST_EFFORT);
        assertThat(Mode.parse("required", "t")).isEqualTo(Mode.REQUIRED);
        for (String bad : new String[] {"", "Required", "best_effort", "on", "strict", " off"}) {
            assertThatThrownBy(() -> Mode.parse(bad, "magus.yaml:2:9"))
                    .isInstanceOfSatisfying(SandboxException.class, e -> {
                        assertThat(e.code()).isEqualTo(Code.MGS2004);
                        assertThat(e.diagnostic().source()).isEqualTo("magus.yaml:2:9");
                    });
        }
    }

    @Test
    void nestedWorkspaceRunsAtTheStrongerOfFloorAndItsOwnMode() {
        assertThat(Mode.effective(Optional.of(Mode.BEST_EFFORT), Optional.empty(), Mode.REQUIRED)).isEqualTo(Mode.REQUIRED);
        assertThat(Mode.effective(Optional.of(Mode.BEST_EFFORT), Optional.empty(), Mode.OFF)).isEqualTo(Mode.BEST_EFFORT);
    }

    @Test
    void aTopLevelPersonMayTurnTheSandboxOff() {
        assertThat(Mode.effective(Optional.empty(), Optional.of(Mode.OFF), Mode.REQUIRED)).isEqualTo(Mode.OFF);
    }

    @Test
    void aFlagWeakerThanTheFloorIsRefusedWithMgs2010() {
        assertThatThrownBy(() -> Mode.effective(Optional.of(Mode.REQUIRED), Optional.of(Mode.BEST_EFFORT), Mode.OFF))
                .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.code()).isEqualTo(Code.MGS2010));
    }

    @Property
    void effectiveModeIsNeverBelowTheFloor(@ForAll Mode floor, @ForAll Mode flag, @ForAll Mode workspace) {
        if (!flag.atLeast(floor)) {
            return; // refused, covered above
        }
        Mode m = Mode.effective(Optional.of(floor), Optional.of(flag), workspace);
        assertThat(m.atLeast(floor)).isTrue();
        assertThat(m).isEqualTo(Mode.stronger(floor, flag));
    }
}
