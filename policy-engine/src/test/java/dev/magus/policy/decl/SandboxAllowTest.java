package dev.magus.policy.decl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.Code;
import dev.magus.events.Layer;
import dev.magus.events.SandboxException;
import dev.magus.policy.fs.AccessMode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

class SandboxAllowTest {
    private static final Site SPELL_SITE = Site.of("spell:go", "sandbox.allow[0]");
    private static final Site WS_SITE = new Site("magus.yaml:7:7", "sandbox.allow[2]",
            Map.of("mode", "magus.yaml:9:13", "path", "magus.yaml:8:13", "base", "magus.yaml:7:13"));

    private static SandboxAllow spell(String env, String base, String path, String mode) {
        return SandboxAllow.declare(Optional.empty(), Optional.ofNullable(env), Optional.ofNullable(base),
                Optional.ofNullable(path), Optional.ofNullable(mode), DeclLayer.spell("go"), SPELL_SITE);
    }

    private static SandboxAllow workspace(String env, String base, String path, String mode) {
        return SandboxAllow.declare(Optional.of("x"), Optional.ofNullable(env), Optional.ofNullable(base),
                Optional.ofNullable(path), Optional.ofNullable(mode), DeclLayer.workspace(), WS_SITE);
    }

    private static void assertMgs2004(ThrowingCallable call, String source, String messagePart) {
        assertThatThrownBy(call).isInstanceOfSatisfying(SandboxException.class, e -> {
            assertThat(e.code()).isEqualTo(Code.MGS2004);
            assertThat(e.diagnostic().layer()).isEqualTo(Layer.POLICY);
            assertThat(e.diagnostic().source()).isEqualTo(source);
            assertThat(e.diagnostic().subject()).isEqualTo(source.substring(source.indexOf(' ') + 1));
            assertThat(e.diagnostic().message()).contains(messagePart);
        });
    }

    @Test
    void modeDefaultsToReadOnlyAndParsesTheFourSpellings() {
        assertThat(spell("GOCACHE", null, null, null).mode()).isEqualTo(AccessMode.R);
        assertThat(spell(null, null, "/opt/x", "ro").mode()).isEqualTo(AccessMode.R);
        assertThat(spell(null, null, "/opt/x", "rw").mode()).isEqualTo(AccessMode.RW);
        assertThat(spell(null, null, "/opt/x", "rx").mode()).isEqualTo(AccessMode.RX);
        assertThat(spell(null, "userCache", "go-build", "rwx").mode()).isEqualTo(AccessMode.RWX);
    }

    @Test
    void unknownAccessModeNamesLayerAndKey() {
        assertMgs2004(() -> workspace(null, null, "/opt/x", "wx"), "magus.yaml:9:13 sandbox.allow[2].mode", "'wx'");
        assertMgs2004(() -> spell(null, null, "/opt/x", "r"), "spell:go sandbox.allow[0].mode", "exec is never implied");
    }

    @Test
    void unknownBase() {
        assertMgs2004(() -> spell(null, "xdgcache", "go", null), "spell:go sandbox.allow[0].base", "unknown base 'xdgcache'");
    }

    @Test
    void baseWithoutPath() {
        assertMgs2004(() -> spell("GOCACHE", "userCache", null, "rw"), "spell:go sandbox.allow[0].base", "needs a path under it");
        assertMgs2004(() -> spell(null, "xdgData", ".", null), "spell:go sandbox.allow[0].path", "needs a path under it");
        assertMgs2004(() -> spell(null, "xdgData", "a/..", null), "spell:go sandbox.allow[0].path", "leaves its base");
    }

    @Test
    void pathLeavingItsBase() {
        assertMgs2004(() -> spell(null, "xdgData", "../x", null), "spell:go sandbox.allow[0].path", "leaves its base");
        assertMgs2004(() -> spell(null, "xdgData", "a/../../x", null), "spell:go sandbox.allow[0].path", "leaves its base");
        assertMgs2004(() -> workspace(null, "xdgData", "/abs", null), "magus.yaml:8:13 sandbox.allow[2].path", "leaves its base");
        assertMgs2004(() -> workspace(null, "home", "~/x", null), "magus.yaml:8:13 sandbox.allow[2].path", "leaves its base");
    }

    @Test
    void dollarInASpellOrTargetPath() {
        assertMgs2004(() -> spell(null, null, "$HOME/.cache/bazel", null), "spell:go sandbox.allow[0].path", "only magus.yaml");
        assertMgs2004(() -> SandboxAllow.declare(Optional.empty(), Optional.empty(), Optional.of("xdgData"),
                        Optional.of("fixtures-$USER"), Optional.empty(), DeclLayer.target("test"), Site.of("target:test", "sandbox.allow[0]")),
                "target:test sandbox.allow[0].path", "only magus.yaml");
    }

    @Test
    void workspaceMayWriteVariablesButAnUnsetOneIsAnError() {
        SandboxAllow a = workspace(null, null, "$HOME/.cache/bazel", "rw");
        assertThat(a.expandedPath(Map.of("HOME", "/home/u"))).contains("/home/u/.cache/bazel");
        assertThat(workspace(null, null, "${ROOT}/x", null).expandedPath(Map.of("ROOT", "/r"))).contains("/r/x");
        assertThat(workspace(null, null, "~/tools-$USER", null).expandedPath(Map.of("USER", "u"))).contains("~/tools-u");
        assertMgs2004(() -> a.expandedPath(Map.of()), "magus.yaml:8:13 sandbox.allow[2].path", "$HOME");
        assertMgs2004(() -> a.expandedPath(Map.of("HOME", "")), "magus.yaml:8:13 sandbox.allow[2].path", "not set");
        assertMgs2004(() -> workspace(null, null, "$/x", null), "magus.yaml:8:13 sandbox.allow[2].path", "malformed variable");
        assertMgs2004(() -> workspace(null, null, "$REL/x", null).expandedPath(Map.of("REL", "rel")),
                "magus.yaml:8:13 sandbox.allow[2].path", "not absolute");
        assertMgs2004(() -> workspace(null, "xdgData", "$SUB", null).expandedPath(Map.of("SUB", "../up")),
                "magus.yaml:8:13 sandbox.allow[2].path", "leaves its base");
    }

    @Test
    void pathWithoutBaseMustBeAbsoluteOrTilde() {
        assertThat(spell(null, null, "~", null).path()).contains("~");
        assertThat(spell(null, null, "~/.local/share/mise", "rx").path()).contains("~/.local/share/mise");
        assertMgs2004(() -> spell(null, null, "relative/x", null), "spell:go sandbox.allow[0].path", "relative");
        assertMgs2004(() -> spell(null, null, "~other/x", null), "spell:go sandbox.allow[0].path", "relative");
    }

    @Test
    void anEntryNeedsALocationAndAVariableName() {
        assertMgs2004(() -> spell(null, null, null, "rw"), "spell:go sandbox.allow[0]", "needs env or path");
        assertMgs2004(() -> spell("GO-CACHE", null, null, null), "spell:go sandbox.allow[0].env", "not a variable name");
    }

    @Test
    void malformedPassthroughNamesItsIndex() {
        Site site = Site.of("spell:go", "sandbox.env");
        // Allowlist names the pattern itself as the subject; the source carries layer and key.
        assertThatThrownBy(() -> SandboxEnv.parse(List.of("GOFLAGS", "GO*"), site))
                .isInstanceOfSatisfying(SandboxException.class, e -> {
                    assertThat(e.code()).isEqualTo(Code.MGS2004);
                    assertThat(e.diagnostic().source()).isEqualTo("spell:go sandbox.env.passthrough[1]");
                    assertThat(e.diagnostic().subject()).isEqualTo("GO*");
                });
        assertThat(SandboxEnv.parse(List.of("GOFLAGS", "MISE_*"), site).passthrough().entries())
                .containsExactly("GOFLAGS", "MISE_*");
    }

    @Test
    void originNamesLayerAndEntry() {
        assertThat(workspace(null, null, "/x", null).origin()).isEqualTo("workspace:x");
        assertThat(spell(null, null, "/x", null).origin()).isEqualTo("spell:go");
        assertThat(SandboxAllow.declare(Optional.of("fixtures"), Optional.of("FIXTURES_DIR"), Optional.empty(),
                Optional.empty(), Optional.empty(), DeclLayer.target("test"), Site.of("target:test", "sandbox.allow[0]")).origin())
                .isEqualTo("target:test/fixtures");
    }
}
