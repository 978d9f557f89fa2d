package dev.magus.policy.decl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.env.Allowlist;
import dev.magus.policy.fs.AccessMode;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MergedDeclTest {
    private static SandboxAllow entry(DeclLayer layer, String path, AccessMode mode) {
        return new SandboxAllow(Optional.empty(), Optional.empty(), Optional.empty(), Optional.of(path), mode, layer,
                Site.of(layer.label(), "sandbox.allow[0]"));
    }

    private static SandboxDecl decl(DeclLayer layer, List<String> passthrough, SandboxAllow... allow) {
        return new SandboxDecl(List.of(allow), Allowlist.parse(passthrough, layer.label()), layer);
    }

    @Test
    void entriesUnionInLayerOrderAndPassthroughUnions() {
        DeclLayer ws = DeclLayer.workspace();
        DeclLayer go = DeclLayer.spell("go");
        DeclLayer rust = DeclLayer.spell("rust");
        DeclLayer test = DeclLayer.target("test");
        MergedDecl merged = MergedDecl.merge(
                decl(ws, List.of("MISE_*"), entry(ws, "/opt/tools", AccessMode.RX)),
                List.of(decl(go, List.of("GOFLAGS", "GO_*"), entry(go, "/opt/tools", AccessMode.RW)),
                        decl(rust, List.of("CARGO_HOME"), entry(rust, "/opt/cargo", AccessMode.RW))),
                Optional.of(decl(test, List.of("FIXTURES_DIR", "GOFLAGS"), entry(test, "/srv/fixtures", AccessMode.RW))));
        assertThat(merged.allow()).extracting(SandboxAllow::layer).containsExactly(ws, go, rust, test);
        assertThat(merged.allow()).extracting(a -> a.path().orElseThrow())
                .containsExactly("/opt/tools", "/opt/tools", "/opt/cargo", "/srv/fixtures");
        assertThat(merged.passthrough().entries())
                .containsExactlyInAnyOrder("MISE_*", "GOFLAGS", "GO_*", "CARGO_HOME", "FIXTURES_DIR");
        assertThat(merged.passthrough().permits("MISE_DATA_DIR")).isTrue();
        assertThat(merged.passthrough().permits("GOOGLE_APPLICATION_CREDENTIALS")).isFalse();
    }

    @Test
    void aDeclarationAtTheWrongLayerIsACallerBug() {
        SandboxDecl spell = SandboxDecl.empty(DeclLayer.spell("go"));
        assertThatThrownBy(() -> MergedDecl.merge(spell, List.of(), Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MergedDecl.merge(SandboxDecl.empty(DeclLayer.workspace()), List.of(),
                Optional.of(spell))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SandboxDecl(List.of(entry(DeclLayer.spell("go"), "/x", AccessMode.R)),
                Allowlist.EMPTY, DeclLayer.workspace())).isInstanceOf(IllegalArgumentException.class);
    }
}
