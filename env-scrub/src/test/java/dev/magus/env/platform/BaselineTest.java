package dev.magus.env.platform;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.env.Allowlist;
import java.util.List;
import org.junit.jupiter.api.Test;

class BaselineTest {

    @Test
    void osNamesMapToThreeFamilies() {
        assertThat(Platform.fromOsName("Linux")).isEqualTo(Platform.LINUX);
        assertThat(Platform.fromOsName("Mac OS X")).isEqualTo(Platform.MACOS);
        assertThat(Platform.fromOsName("Darwin")).isEqualTo(Platform.MACOS);
        assertThat(Platform.fromOsName("Windows 11")).isEqualTo(Platform.OTHER);
        assertThat(Platform.fromOsName("FreeBSD")).isEqualTo(Platform.OTHER);
    }

    @Test
    void everyPlatformKeepsIdentityPathLocaleAndTerminal() {
        for (Platform p : Platform.values()) {
            Allowlist b = p.baseline();
            for (String name : List.of("HOME", "USER", "LOGNAME", "PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM")) {
                assertThat(b.permits(name)).as(p + " " + name).isTrue();
            }
        }
    }

    @Test
    void unixPlatformsAddShellPwdAndXdg() {
        for (Platform p : List.of(Platform.LINUX, Platform.MACOS)) {
            assertThat(p.baseline().permits("SHELL")).isTrue();
            assertThat(p.baseline().permits("PWD")).isTrue();
            assertThat(p.baseline().permits("XDG_CONFIG_HOME")).isTrue();
        }
        assertThat(Platform.OTHER.baseline().permits("SHELL")).isFalse();
        assertThat(Platform.OTHER.baseline().permits("PWD")).isFalse();
        assertThat(Platform.OTHER.baseline().permits("XDG_CONFIG_HOME")).isFalse();
    }

    @Test
    void noCredentialSurvivesTheBaseline() {
        for (Platform p : Platform.values()) {
            for (String secret : List.of("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "VAULT_TOKEN",
                    "VAULT_ADDR", "NPM_TOKEN", "ANTHROPIC_API_KEY", "SSH_AUTH_SOCK", "GOOGLE_APPLICATION_CREDENTIALS",
                    "TMPDIR", "LCX", "LANGUAGE", "TERMINFO_SECRET", "HOMEBREW_GITHUB_API_TOKEN")) {
                assertThat(p.baseline().permits(secret)).as(p + " " + secret).isFalse();
            }
        }
    }
}
