package dev.magus.policy;

import dev.magus.env.platform.Platform;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostFactsTest {
    @TempDir
    Path tmp;

    @Test
    void magusCacheDirFollowsXdgCacheHomeElseTheUserCacheDir() {
        Path home = tmp.resolve("home/u");
        assertThat(HostFacts.linux(Map.of(), home, List.of(), tmp).magusCacheDir()).isEqualTo(home.resolve(".cache/magus"));
        assertThat(HostFacts.linux(Map.of("XDG_CACHE_HOME", "/xdg"), home, List.of(), tmp).magusCacheDir())
                .isEqualTo(Path.of("/xdg/magus"));
        // A relative XDG_CACHE_HOME is ignored, as the XDG specification says.
        assertThat(HostFacts.linux(Map.of("XDG_CACHE_HOME", "rel"), home, List.of(), tmp).magusCacheDir())
                .isEqualTo(home.resolve(".cache/magus"));
        assertThat(HostFacts.of(Map.of(), home, 501, Platform.MACOS, List.of(), tmp).magusCacheDir())
                .isEqualTo(home.resolve("Library/Caches/magus"));
    }

    @Test
    void theSocketDirOfTheServerARunIsForwardedToIsPrivateToo() {
        Path home = tmp.resolve("home/u");
        assertThat(HostFacts.linux(Map.of(), home, List.of(), tmp).magusPrivateDirs()).doesNotContain(Path.of("/srv/sock"));
        assertThat(HostFacts.linux(Map.of("MAGUS_SERVER_ADDRESS", "/srv/sock/server.sock"), home, List.of(), tmp)
                .magusPrivateDirs()).contains(Path.of("/srv/sock"), home.resolve(".local/state/magus"));
        // A relative address names no dir.
        assertThat(HostFacts.linux(Map.of("MAGUS_SERVER_ADDRESS", "server.sock"), home, List.of(), tmp).magusPrivateDirs())
                .isEqualTo(HostFacts.linux(Map.of(), home, List.of(), tmp).magusPrivateDirs());
    }

    @Test
    void osFromItsSystemName() {
        assertThat(Platform.fromOsName("Mac OS X")).isEqualTo(Platform.MACOS);
        assertThat(Platform.fromOsName("Linux")).isEqualTo(Platform.LINUX);
        // One OS enum: a host neither Linux nor macOS gets the XDG (Linux) table, as before.
        assertThat(Platform.fromOsName("FreeBSD")).isEqualTo(Platform.OTHER);
        assertThat(HostFacts.of(Map.of(), tmp, 1000, Platform.OTHER, List.of(), tmp).magusCacheDir())
                .isEqualTo(HostFacts.of(Map.of(), tmp, 1000, Platform.LINUX, List.of(), tmp).magusCacheDir());
    }

    @Test
    void pathsMustBeAbsolute() {
        assertThatThrownBy(() -> HostFacts.linux(Map.of(), Path.of("home"), List.of(), tmp))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> HostFacts.linux(Map.of(), tmp, List.of(Path.of("lib")), tmp))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void fromSystemReadsThisProcess() {
        HostFacts h = HostFacts.fromSystem(tmp);
        assertThat(h.installation()).contains(Path.of(System.getProperty("java.home")).toAbsolutePath().normalize());
        assertThat(h.home()).isEqualTo(Path.of(System.getProperty("user.home")).toAbsolutePath().normalize());
        assertThat(h.privateTemp()).isEqualTo(tmp);
        assertThat(h.env()).isEqualTo(System.getenv());
    }
}
