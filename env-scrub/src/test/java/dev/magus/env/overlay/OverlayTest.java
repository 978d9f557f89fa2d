package dev.magus.env.overlay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.Code;
import dev.magus.events.SandboxException;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OverlayTest {

    @Test
    void laterChangeToANameWins() {
        Overlay o = Overlay.empty().set("A", "1").unset("A").set("B", "1").set("B", "2").unset("C").set("C", "3");
        assertThat(o.sets()).containsExactly(Map.entry("B", "2"), Map.entry("C", "3"));
        assertThat(o.unsets()).containsExactly("A");
        assertThat(o.over(Map.of("A", "host", "D", "host"))).containsExactly(
                Map.entry("B", "2"), Map.entry("C", "3"), Map.entry("D", "host"));
    }

    @Test
    void everyChangeIsANewValueAndTheBaseIsNeverTouched() {
        Overlay base = Overlay.empty().set("A", "1");
        Overlay more = base.set("B", "2").unset("A");
        assertThat(base.sets()).containsExactly(Map.entry("A", "1"));
        assertThat(base.unsets()).isEmpty();
        assertThat(Overlay.empty().isEmpty()).isTrue();

        Map<String, String> host = new HashMap<>(Map.of("A", "host"));
        assertThat(more.over(host)).containsExactly(Map.entry("B", "2"));
        assertThat(host).containsExactly(Map.entry("A", "host"));
        assertThatThrownBy(() -> more.sets().put("X", "y")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aBadNameIsMgs2004WithItsSource() {
        assertThatThrownBy(() -> Overlay.empty().set("BAD-NAME", "x", "--env"))
                .isInstanceOfSatisfying(SandboxException.class, e -> {
                    assertThat(e.code()).isEqualTo(Code.MGS2004);
                    assertThat(e.diagnostic().source()).isEqualTo("--env");
                    assertThat(e.diagnostic().subject()).isEqualTo("BAD-NAME");
                });
        assertThatThrownBy(() -> Overlay.empty().unset("1X", "magusfile:3:5"))
                .isInstanceOfSatisfying(SandboxException.class,
                        e -> assertThat(e.diagnostic().source()).isEqualTo("magusfile:3:5"));
        assertThatThrownBy(() -> Overlay.empty().set("", "x"))
                .isInstanceOfSatisfying(SandboxException.class,
                        e -> assertThat(e.diagnostic().source()).isEqualTo(Overlay.SET_SOURCE));
        assertThatThrownBy(() -> Overlay.empty().set("A", "x\0y", "--env"))
                .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.code()).isEqualTo(Code.MGS2004));
    }

    @Test
    void thenLetsTheLaterOverlayWin() {
        Overlay target = Overlay.empty().set("A", "target").unset("B").set("C", "target");
        Overlay cli = Overlay.empty().set("B", "cli").unset("C");
        Overlay both = target.then(cli);
        assertThat(both.sets()).containsExactly(Map.entry("A", "target"), Map.entry("B", "cli"));
        assertThat(both.unsets()).containsExactly("C");
        assertThat(both.touches("C")).isTrue();
        assertThat(both.touches("D")).isFalse();
    }

    @Test
    void theCanonicalConstructorRefusesContradictions() {
        assertThatThrownBy(() -> new Overlay(new java.util.TreeMap<>(Map.of("A", "1")), new java.util.TreeSet<>(java.util.Set.of("A"))))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
