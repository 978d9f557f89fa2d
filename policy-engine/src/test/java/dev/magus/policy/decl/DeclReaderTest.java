package dev.magus.policy.decl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.Code;
import dev.magus.events.SandboxException;
import dev.magus.policy.fs.AccessMode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeclReaderTest {
    private static final DeclLayer TEST = DeclLayer.target("test");

    private static void refused(Map<String, ?> sandbox, String source) {
        assertThatThrownBy(() -> DeclReader.read(sandbox, TEST)).isInstanceOfSatisfying(SandboxException.class, e -> {
            assertThat(e.code()).isEqualTo(Code.MGS2004);
            assertThat(e.diagnostic().source()).isEqualTo(source);
        });
    }

    @Test
    void readsTheSpecificationsTargetExample() {
        SandboxDecl d = DeclReader.read(Map.of(
                "allow", List.of(Map.of("env", "FIXTURES_DIR", "base", "xdgData", "path", "fixtures", "mode", "rw")),
                "env", Map.of("passthrough", List.of("FIXTURES_DIR"))), TEST);
        assertThat(d.layer()).isEqualTo(TEST);
        assertThat(d.allow()).singleElement().satisfies(a -> {
            assertThat(a.env()).contains("FIXTURES_DIR");
            assertThat(a.base()).contains(Base.XDG_DATA);
            assertThat(a.mode()).isEqualTo(AccessMode.RW);
            assertThat(a.origin()).isEqualTo("target:test");
        });
        assertThat(d.passthrough().permits("FIXTURES_DIR")).isTrue();
        assertThat(DeclReader.read(Map.of(), DeclLayer.spell("go"))).isEqualTo(SandboxDecl.empty(DeclLayer.spell("go")));
    }

    @Test
    void unknownKeysAndAModeSettingAreRefused() {
        refused(Map.of("mode", "required"), "target:test sandbox.mode");
        refused(Map.of("allow", List.of(Map.of("path", "/x", "acess", "rw"))), "target:test sandbox.allow[0].acess");
        refused(Map.of("env", Map.of("pass", List.of())), "target:test sandbox.env.pass");
    }

    @Test
    void wrongTypesAndBadValuesNameTheirKey() {
        refused(Map.of("allow", Map.of("path", "/x")), "target:test sandbox.allow");
        refused(Map.of("allow", List.of("/x")), "target:test sandbox.allow[0]");
        refused(Map.of("allow", List.of(Map.of("path", 7))), "target:test sandbox.allow[0].path");
        refused(Map.of("allow", List.of(Map.of("path", "/x"), Map.of("base", "cache", "path", "x"))), "target:test sandbox.allow[1].base");
        refused(Map.of("allow", List.of(Map.of("path", "$HOME/x"))), "target:test sandbox.allow[0].path");
        refused(Map.of("env", Map.of("passthrough", List.of("OK", "GO*"))), "target:test sandbox.env.passthrough[1]");
        refused(Map.of("env", Map.of("passthrough", List.of(List.of("A")))), "target:test sandbox.env.passthrough[0]");
    }
}
