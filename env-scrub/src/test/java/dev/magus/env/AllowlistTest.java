package dev.magus.env;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.Code;
import dev.magus.events.SandboxException;
import java.util.List;
import org.junit.jupiter.api.Test;

class AllowlistTest {

    @Test
    void prefixPatternMatchesAtAWordBoundaryOnly() {
        Allowlist a = Allowlist.parse(List.of("MISE_*", "TF_PLUGIN_CACHE_DIR"), "test");
        assertThat(a.permits("MISE_DATA_DIR")).isTrue();
        assertThat(a.permits("TF_PLUGIN_CACHE_DIR")).isTrue();
        assertThat(a.permits("MISER")).isFalse();
        assertThat(a.permits("TF_PLUGIN_CACHE_DIRX")).isFalse();
    }

    @Test
    void goStarIsRefusedBecauseItWouldMatchGoogleCredentials() {
        assertThatThrownBy(() -> Allowlist.parse(List.of("GO*"), "magus.yaml:4:7 sandbox.env.passthrough[0]"))
                .isInstanceOfSatisfying(SandboxException.class, e -> {
                    assertThat(e.code()).isEqualTo(Code.MGS2004);
                    assertThat(e.diagnostic().source()).contains("passthrough[0]");
                });
        assertThat(Allowlist.parse(List.of("GOFLAGS", "GOCACHE"), "t").permits("GOOGLE_APPLICATION_CREDENTIALS")).isFalse();
    }

    @Test
    void malformedPatternsAreMgs2004() {
        for (String bad : List.of("A_*", "*_TOKEN", "MISE_**", "MI*SE_", "GO*", "", "1ABC", "A B", "MISE*")) {
            assertThatThrownBy(() -> Allowlist.parse(List.of(bad), "t"))
                    .as(bad)
                    .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.code()).isEqualTo(Code.MGS2004));
        }
        assertThat(Allowlist.parse(List.of("AB_*"), "t").permits("AB_C")).isTrue();
    }
}
