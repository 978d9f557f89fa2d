package dev.magus.landlock.abi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.Code;
import dev.magus.events.Layer;
import dev.magus.events.SandboxException;
import dev.magus.events.Mode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class DecisionTest {

    private static Decision decide(Mode mode, LandlockProbe host) {
        return Decision.decide(mode, host.abi());
    }

    @Test
    void offNeverConfinesNorWarns() {
        for (int abi = 0; abi <= 7; abi++) {
            Decision d = decide(Mode.OFF, LandlockProbe.fixed(abi));
            assertThat(d).isInstanceOf(Decision.Unconfined.class);
            assertThat(((Decision.Unconfined) d).warning()).isEmpty();
        }
    }

    @Test
    void bestEffortWithoutLandlockRunsBindingOnlyWithMgs2005() {
        Decision d = decide(Mode.BEST_EFFORT, LandlockProbe.fixed(0));
        assertThat(d).isInstanceOf(Decision.Unconfined.class);
        var w = ((Decision.Unconfined) d).warning().orElseThrow();
        assertThat(w.code()).isEqualTo(Code.MGS2005);
        assertThat(w.layer()).isEqualTo(Layer.KERNEL);
        assertThat(w.message()).contains("not enforced: ABI 0").contains("binding checks only");
    }

    @Test
    void bestEffortOnAbi1ConfinesAndListsWhatIsMissing() {
        Decision.Confine c = (Decision.Confine) decide(Mode.BEST_EFFORT, LandlockProbe.fixed(1));
        assertThat(c.abi()).isEqualTo(1);
        assertThat(c.warning().orElseThrow().message())
                .isEqualTo("truncate, device ioctl, abstract unix socket scoping, signal scoping not enforced: ABI 1");
    }

    @Test
    void bestEffortOnAbi2SaysTruncateIsNotEnforced() {
        Decision.Confine c = (Decision.Confine) decide(Mode.BEST_EFFORT, LandlockProbe.fixed(2));
        assertThat(c.warning().orElseThrow().code()).isEqualTo(Code.MGS2005);
        assertThat(c.warning().orElseThrow().message()).startsWith("truncate, ").endsWith("not enforced: ABI 2");
        assertThat(c.unenforced()).contains("truncate");
    }

    @Test
    void bestEffortOnAbi3EnforcesTruncate() {
        Decision.Confine c = (Decision.Confine) decide(Mode.BEST_EFFORT, LandlockProbe.fixed(3));
        assertThat(c.unenforced()).doesNotContain("truncate");
        assertThat(c.warning().orElseThrow().message()).doesNotContain("truncate").endsWith("not enforced: ABI 3");
    }

    @Test
    void bestEffortFromAbi6IsSilent() {
        for (int abi : new int[] {6, 7, 9}) {
            Decision.Confine c = (Decision.Confine) decide(Mode.BEST_EFFORT, LandlockProbe.fixed(abi));
            assertThat(c.warning()).isEmpty();
            assertThat(c.unenforced()).isEmpty();
            assertThat(c.abi()).isLessThanOrEqualTo(AbiRights.NEWEST_KNOWN);
        }
    }

    @Test
    void requiredRefusesBelowAbi3WithMgs2012() {
        for (int abi = 0; abi <= 2; abi++) {
            Decision d = decide(Mode.REQUIRED, LandlockProbe.fixed(abi));
            assertThat(d).isInstanceOf(Decision.Refuse.class);
            Decision.Refuse r = (Decision.Refuse) d;
            assertThat(r.diagnostic().code()).isEqualTo(Code.MGS2012);
            assertThat(r.diagnostic().message()).contains("ABI 3");
            assertThat(r.diagnostic().details()).containsEntry("abi", Integer.toString(abi));
            assertThatThrownBy(() -> { throw r.exception(); })
                    .isInstanceOf(SandboxException.class)
                    .satisfies(e -> assertThat(((SandboxException) e).code()).isEqualTo(Code.MGS2012));
        }
    }

    @Test
    void requiredConfinesFromAbi3WithoutWarning() {
        Decision.Confine c = (Decision.Confine) decide(Mode.REQUIRED, LandlockProbe.fixed(3));
        assertThat(c.abi()).isEqualTo(3);
        assertThat(c.warning()).isEmpty();
    }

    @Property
    void requiredNeverRunsUnconfined(@ForAll @IntRange(min = 0, max = 20) int abi) {
        Decision d = Decision.decide(Mode.REQUIRED, abi);
        assertThat(d).isNotInstanceOf(Decision.Unconfined.class);
        assertThat(d instanceof Decision.Confine).isEqualTo(abi >= 3);
    }

    @Test
    void requiredCannotBeUnconfinedByConstruction() {
        assertThatThrownBy(() -> new Decision.Unconfined(Mode.REQUIRED, java.util.Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void handledRightsGrowWithTheAbi() {
        assertThat(AbiRights.handledFs(0)).isZero();
        assertThat(Long.bitCount(AbiRights.handledFs(1))).isEqualTo(13);
        assertThat(Long.bitCount(AbiRights.handledFs(2))).isEqualTo(14);
        assertThat(Long.bitCount(AbiRights.handledFs(3))).isEqualTo(15);
        assertThat(AbiRights.handledFs(4)).isEqualTo(AbiRights.handledFs(3));
        assertThat(Long.bitCount(AbiRights.handledFs(5))).isEqualTo(16);
        assertThat(AbiRights.scoped(5)).isZero();
        assertThat(AbiRights.scoped(6)).isEqualTo(3);
        assertThat(AbiRights.restrictFlags(6)).isZero();
        assertThat(AbiRights.restrictFlags(7)).isEqualTo(2);
    }

    private static final java.util.Optional<String> PROXY = java.util.Optional.of("TCP connect and bind (network mode proxy)");

    @Test
    void aConfinedNetworkBelowAbi4IsNamedInMgs2005UnderBestEffort() {
        for (int abi = 1; abi < 4; abi++) {
            Decision.Confine c = (Decision.Confine) Decision.decide(Mode.BEST_EFFORT, abi, PROXY);
            assertThat(c.unenforced()).contains("TCP connect and bind (network mode proxy)");
            assertThat(c.warning().orElseThrow().message()).contains("TCP connect and bind (network mode proxy)");
            assertThat(c.warning().orElseThrow().details().get("unenforced")).contains("TCP connect and bind");
        }
        Decision.Unconfined none = (Decision.Unconfined) Decision.decide(Mode.BEST_EFFORT, 0, PROXY);
        assertThat(none.warning().orElseThrow().message()).contains("TCP connect and bind (network mode proxy)");
        Decision.Confine seven = (Decision.Confine) Decision.decide(Mode.BEST_EFFORT, 7, PROXY);
        assertThat(seven.unenforced()).isEmpty();
        assertThat(seven.warning()).isEmpty();
    }

    @Test
    void requiredRefusesAConfinedNetworkBelowAbi4WithMgs2012() {
        Decision.Refuse r = (Decision.Refuse) Decision.decide(Mode.REQUIRED, 3, PROXY);
        assertThat(r.diagnostic().code()).isEqualTo(Code.MGS2012);
        assertThat(r.diagnostic().message()).contains("needs Landlock ABI 4").contains("ABI 3");
        assertThat(r.diagnostic().subject()).isEqualTo("sandbox.network.mode");
        assertThat(Decision.decide(Mode.REQUIRED, 4, PROXY)).isInstanceOf(Decision.Confine.class);
        // Mode open asks nothing of TCP: ABI 3 still runs required.
        assertThat(Decision.decide(Mode.REQUIRED, 3, java.util.Optional.empty())).isInstanceOf(Decision.Confine.class);
    }
}
