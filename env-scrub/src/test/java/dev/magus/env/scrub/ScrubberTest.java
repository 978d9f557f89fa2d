package dev.magus.env.scrub;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.env.Allowlist;
import dev.magus.env.platform.Platform;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ScrubberTest {

    @Test
    void keepsTheBaselineThePassthroughAndWhatMagusDecidesLater() {
        Scrubber s = Scrubber.of(Platform.LINUX, Allowlist.parse(List.of("TF_PLUGIN_CACHE_DIR", "MISE_*"), "magus.yaml"));
        assertThat(s.keeps("PATH")).isTrue();
        assertThat(s.keeps("LC_ALL")).isTrue();
        assertThat(s.keeps("XDG_CACHE_HOME")).isTrue();
        assertThat(s.keeps("TF_PLUGIN_CACHE_DIR")).isTrue();
        assertThat(s.keeps("MISE_DATA_DIR")).isTrue();
        assertThat(s.keeps("TMPDIR")).isTrue();
        assertThat(s.keeps("MAGUS_PROC_SOCKET")).isTrue();
        assertThat(s.keeps("MISER")).isFalse();
        assertThat(s.keeps("GITHUB_TOKEN")).isFalse();
        assertThat(s.keeps("MAGUS_OTHER")).isFalse();
        assertThat(s.allowlist().entries()).contains("PATH", "TF_PLUGIN_CACHE_DIR", "LC_*", "MISE_*")
                .doesNotContain("TMPDIR", "MAGUS_PROC_SOCKET");
    }

    @Test
    void goVariablesByNameNeverLetGoogleCredentialsThrough() {
        Scrubber s = Scrubber.of(Platform.LINUX, Allowlist.parse(List.of("GOFLAGS", "GOCACHE", "GOEXPERIMENT"), "go spell"));
        Scrubbed out = s.scrub(Map.of(
                "GOFLAGS", "-mod=mod",
                "GOCACHE", "/fake/go-build",
                "GOOGLE_APPLICATION_CREDENTIALS", "/fake/adc.json",
                "GOPRIVATE", "example.invalid"));
        assertThat(out.kept()).containsOnlyKeys("GOFLAGS", "GOCACHE");
        assertThat(out.dropped()).isEqualTo(2);
    }

    @Test
    void theHostMapIsOnlyRead() {
        Map<String, String> host = new HashMap<>(Map.of("PATH", "/usr/bin", "NPM_TOKEN", "npm_FAKEFAKEFAKE"));
        Scrubber.of(Platform.MACOS, Allowlist.EMPTY).scrub(host);
        assertThat(host).containsOnlyKeys("PATH", "NPM_TOKEN");
    }
}
