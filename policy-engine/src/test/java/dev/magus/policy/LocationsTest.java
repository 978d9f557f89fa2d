package dev.magus.policy;

import dev.magus.env.platform.Platform;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.Code;
import dev.magus.events.SandboxException;
import dev.magus.policy.decl.DeclLayer;
import dev.magus.policy.decl.SandboxAllow;
import dev.magus.policy.decl.Site;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocationsTest {
    @TempDir
    Path tmp;

    private HostFacts host(Map<String, String> env) {
        return HostFacts.linux(env, tmp.resolve("home/u"), List.of(), tmp.resolve("run"));
    }

    private static SandboxAllow allow(DeclLayer layer, String env, String base, String path) {
        return SandboxAllow.declare(Optional.empty(), Optional.ofNullable(env), Optional.ofNullable(base),
                Optional.ofNullable(path), Optional.of("rw"), layer, Site.of(layer.label(), "sandbox.allow[0]"));
    }

    private static SandboxAllow spell(String env, String base, String path) {
        return allow(DeclLayer.spell("go"), env, base, path);
    }

    private Location locate(SandboxAllow a, Map<String, String> env) {
        return Locations.locate(a, host(env), tmp.resolve("ws"));
    }

    private Path home() {
        return tmp.resolve("home/u");
    }

    @Test
    void theVariableWinsWhenSet() {
        Location l = locate(spell("GOCACHE", "userCache", "go-build"), Map.of("GOCACHE", "/srv/gocache"));
        assertThat(l).isEqualTo(new Location.At(Path.of("/srv/gocache"), "$GOCACHE"));
    }

    @Test
    void anUnsetOrEmptyVariableFallsBackToPathUnderBase() {
        Path expected = home().resolve(".cache/go-build");
        assertThat(locate(spell("GOCACHE", "userCache", "go-build"), Map.of())).isEqualTo(new Location.At(expected, "userCache/go-build"));
        assertThat(locate(spell("GOCACHE", "userCache", "go-build"), Map.of("GOCACHE", ""))).isInstanceOf(Location.At.class);
        assertThat(locate(spell("GOCACHE", "xdgCache", "go-build"), Map.of("XDG_CACHE_HOME", "/xdg/cache")))
                .isEqualTo(new Location.At(Path.of("/xdg/cache/go-build"), "xdgCache/go-build", Optional.of(Path.of("/xdg/cache"))));
    }

    @Test
    void everyBaseOnLinux() {
        Map<String, Path> expected = Map.of(
                "xdgData", home().resolve(".local/share/t"),
                "xdgCache", home().resolve(".cache/t"),
                "xdgConfig", home().resolve(".config/t"),
                "xdgState", home().resolve(".local/state/t"),
                "userCache", home().resolve(".cache/t"),
                "userConfig", home().resolve(".config/t"),
                "home", home().resolve("t"),
                "workspace", tmp.resolve("ws/t"));
        expected.forEach((base, path) -> assertThat(locate(spell(null, base, "t"), Map.of()))
                .as(base).isEqualTo(new Location.At(path, base + "/t")));
        assertThat(locate(spell(null, "xdgState", "t"), Map.of("XDG_STATE_HOME", "/state")))
                .isEqualTo(new Location.At(Path.of("/state/t"), "xdgState/t", Optional.of(Path.of("/state"))));
        assertThat(locate(spell(null, "userConfig", "t"), Map.of("XDG_CONFIG_HOME", "/conf")))
                .isEqualTo(new Location.At(Path.of("/conf/t"), "userConfig/t", Optional.of(Path.of("/conf"))));
    }

    @Test
    void macosUserBasesAreFixedDirectories() {
        HostFacts mac = HostFacts.of(Map.of("XDG_CACHE_HOME", "/xdg"), home(), 501, Platform.MACOS, List.of(), tmp.resolve("run"));
        assertThat(Locations.locate(spell(null, "userCache", "t"), mac, tmp))
                .isEqualTo(new Location.At(home().resolve("Library/Caches/t"), "userCache/t"));
        assertThat(Locations.locate(spell(null, "userConfig", "t"), mac, tmp))
                .isEqualTo(new Location.At(home().resolve("Library/Application Support/t"), "userConfig/t"));
        assertThat(Locations.locate(spell(null, "xdgCache", "t"), mac, tmp))
                .isEqualTo(new Location.At(Path.of("/xdg/t"), "xdgCache/t", Optional.of(Path.of("/xdg"))));
        assertThat(mac.userCacheDir()).isEqualTo(home().resolve("Library/Caches"));
    }

    @Test
    void absoluteAndTildePaths() {
        assertThat(locate(spell(null, null, "/opt/tools/"), Map.of())).isEqualTo(new Location.At(Path.of("/opt/tools"), "/opt/tools/"));
        assertThat(locate(spell(null, null, "~/.local/share/mise"), Map.of()))
                .isEqualTo(new Location.At(home().resolve(".local/share/mise"), "~/.local/share/mise"));
    }

    @Test
    void goCacheOffGrantsNothing() {
        Location l = locate(spell("GOCACHE", "userCache", "go-build"), Map.of("GOCACHE", "off"));
        assertThat(l).isInstanceOfSatisfying(Location.GrantsNothing.class,
                g -> assertThat(g.why()).contains("$GOCACHE=off").contains("not an absolute path"));
    }

    @Test
    void homeAndItsAncestorsGrantNothing() {
        String home = home().toString();
        for (String value : List.of(home, home + "/", tmp.resolve("home").toString(), "/")) {
            assertThat(locate(spell("GOCACHE", null, null), Map.of("GOCACHE", value))).as(value)
                    .isInstanceOfSatisfying(Location.GrantsNothing.class, g -> assertThat(g.why()).contains("home directory"));
        }
        // A declared path is located as written: whether it is home or above is decided once it is
        // resolved the way the kernel walks it (~/x/.. is not home when x is a link), see PolicyBuilderTest.
        assertThat(locate(spell(null, null, "~"), Map.of())).isEqualTo(new Location.At(home(), "~"));
        assertThat(locate(spell(null, null, "~/x/.."), Map.of())).isEqualTo(new Location.At(home().resolve("x/.."), "~/x/.."));
        assertThat(locate(allow(DeclLayer.workspace(), null, null, "$HOME"), Map.of("HOME", home)))
                .isEqualTo(new Location.At(home(), "$HOME"));
        // A sibling of home that merely shares a prefix is not an ancestor.
        assertThat(locate(spell("GOCACHE", null, null), Map.of("GOCACHE", home + "2"))).isInstanceOf(Location.At.class);
    }

    @Test
    void xdgCacheHomeSetToHomeGrantsNothing() {
        Location l = locate(spell("GOCACHE", "xdgCache", "go-build"), Map.of("XDG_CACHE_HOME", home().toString()));
        assertThat(l).isInstanceOfSatisfying(Location.GrantsNothing.class,
                g -> assertThat(g.why()).contains("$XDG_CACHE_HOME=").contains("home directory"));
        assertThat(locate(spell(null, "xdgData", "mise"), Map.of("XDG_DATA_HOME", "relative/data")))
                .isInstanceOfSatisfying(Location.GrantsNothing.class, g -> assertThat(g.why()).contains("not an absolute path"));
    }

    @Test
    void anUnsetVariableWithoutPathGrantsNothing() {
        assertThat(locate(spell("FIXTURES_DIR", null, null), Map.of()))
                .isInstanceOfSatisfying(Location.GrantsNothing.class, g -> assertThat(g.why()).contains("not set"));
    }

    @Test
    void workspaceVariablesExpandFromTheHostAndUnsetIsMgs2004() {
        SandboxAllow bazel = allow(DeclLayer.workspace(), null, null, "$HOME/.cache/bazel");
        assertThat(locate(bazel, Map.of("HOME", home().toString())))
                .isEqualTo(new Location.At(home().resolve(".cache/bazel"), "$HOME/.cache/bazel"));
        assertThatThrownBy(() -> locate(allow(DeclLayer.workspace(), null, null, "$UNSET/"), Map.of()))
                .isInstanceOfSatisfying(SandboxException.class, e -> {
                    assertThat(e.code()).isEqualTo(Code.MGS2004);
                    assertThat(e.diagnostic().source()).isEqualTo("workspace sandbox.allow[0].path");
                });
    }
}
