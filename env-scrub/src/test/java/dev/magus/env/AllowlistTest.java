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

    @Test
    void aPrefixShorterThanThreeCharactersIsRefused() {
        for (String shortPrefix : List.of("A_*", "_*", "*")) {
            assertThatThrownBy(() -> Allowlist.parse(List.of(shortPrefix), "magus.yaml:5:9 sandbox.env.passthrough[0]"))
                    .as(shortPrefix)
                    .isInstanceOfSatisfying(SandboxException.class, e -> {
                        assertThat(e.code()).isEqualTo(Code.MGS2004);
                        assertThat(e.diagnostic().subject()).isEqualTo(shortPrefix);
                    });
        }
        Allowlist threeChars = Allowlist.parse(List.of("TF_*"), "t");
        assertThat(threeChars.permits("TF_LOG")).isTrue();
        assertThat(threeChars.permits("TFX")).isFalse();
    }

    @Test
    void theRefusalNamesTheLayerThatDeclaredIt() {
        String spell = "spell go: mgs_getSandbox().env.passthrough[2]";
        assertThatThrownBy(() -> Allowlist.parse(List.of("GOFLAGS", "GOCACHE", "GO*"), spell))
                .isInstanceOfSatisfying(SandboxException.class, e -> {
                    assertThat(e.diagnostic().source()).isEqualTo(spell);
                    assertThat(e.getMessage()).contains(spell);
                });
    }

    @Test
    void layersUnionAndKeepTheirDeclaredSpelling() {
        Allowlist workspace = Allowlist.parse(List.of("MISE_*", "TF_PLUGIN_CACHE_DIR"), "magus.yaml");
        Allowlist spell = Allowlist.parse(List.of("GOFLAGS", "MISE_*"), "go spell");
        Allowlist merged = workspace.union(spell);
        assertThat(merged.entries()).containsExactly("GOFLAGS", "TF_PLUGIN_CACHE_DIR", "MISE_*");
        assertThat(merged.permits("GOFLAGS")).isTrue();
        assertThat(merged.permits("MISE_SAFE")).isTrue();
        assertThat(workspace.permits("GOFLAGS")).isFalse();
    }
}
