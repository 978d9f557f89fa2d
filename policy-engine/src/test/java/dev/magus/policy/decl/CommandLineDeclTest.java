package dev.magus.policy.decl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.env.Allowlist;
import dev.magus.events.Code;
import dev.magus.events.SandboxException;
import dev.magus.policy.fs.AccessMode;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code magus run --allow PATH[:MODE] --pass VAR}: the cli layer, and what it refuses. */
class CommandLineDeclTest {
    static final Path CWD = Path.of("/w/project");

    private static SandboxAllow one(String spec) {
        SandboxDecl d = CommandLineDecl.parse(List.of(spec), List.of(), CWD);
        assertThat(d.layer()).isEqualTo(DeclLayer.cli());
        assertThat(d.allow()).hasSize(1);
        return d.allow().get(0);
    }

    @Test
    void aPathWithoutAModeIsReadOnlyAndARelativeOneIsUnderTheWorkingDirectory() {
        SandboxAllow a = one("../build/out");
        assertThat(a.path()).contains("/w/build/out");
        assertThat(a.mode()).isEqualTo(AccessMode.R);
        assertThat(a.origin()).isEqualTo("cli");
    }

    @Test
    void theModeFollowsTheLastColon() {
        assertThat(one("/srv/cache:rw").mode()).isEqualTo(AccessMode.RW);
        assertThat(one("/srv/cache:rwx").mode()).isEqualTo(AccessMode.RWX);
        assertThat(one("tools:rx").path()).contains("/w/project/tools");
        assertThat(one("/srv/a:b/c").path()).as("a colon inside the path").contains("/srv/a:b/c");
        assertThat(one("/srv/a:b:ro").path()).contains("/srv/a:b");
        assertThat(one("~/.cache/tool:rw").path()).contains("~/.cache/tool");
    }

    @Test
    void badValuesAreMgs2004NamingTheFlag() {
        for (String bad : List.of("dir:bogus", "dir:", ":rw", "", "a\0b", "$HOME/x:rw", "/x:RW")) {
            assertThatThrownBy(() -> CommandLineDecl.parse(List.of(bad), List.of(), CWD)).as(bad)
                    .isInstanceOfSatisfying(SandboxException.class, e -> {
                        assertThat(e.code()).isEqualTo(Code.MGS2004);
                        assertThat(e.diagnostic().source()).isEqualTo("--allow");
                    });
        }
    }

    @Test
    void passFollowsThePassthroughRules() {
        SandboxDecl d = CommandLineDecl.parse(List.of(), List.of("FOO", "MISE_*"), CWD);
        assertThat(d.passthrough().permits("FOO")).isTrue();
        assertThat(d.passthrough().permits("MISE_ENV")).isTrue();
        assertThat(d.passthrough().permits("BAR")).isFalse();
        for (String bad : List.of("", "has-dash", "A*", "X_*Y", "1ABC")) {
            assertThatThrownBy(() -> CommandLineDecl.parse(List.of(), List.of(bad), CWD)).as(bad)
                    .isInstanceOfSatisfying(SandboxException.class, e -> {
                        assertThat(e.code()).isEqualTo(Code.MGS2004);
                        assertThat(e.diagnostic().source()).isEqualTo("--pass");
                    });
        }
    }

    @Test
    void theCliLayerIsMergedLastByTheSameUnion() {
        SandboxDecl ws = new SandboxDecl(List.of(SandboxAllow.declare(Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.of("/srv/data"), Optional.of("ro"), DeclLayer.workspace(), Site.of("magus.yaml:3:5",
                        "sandbox.allow[0]"))), Allowlist.parse(List.of("WS_VAR"), "test"), DeclLayer.workspace());
        SandboxDecl cli = CommandLineDecl.parse(List.of("/srv/data:rw"), List.of("FOO"), CWD);
        MergedDecl m = MergedDecl.merge(ws, List.of(), Optional.empty(), Optional.of(cli));
        assertThat(m.allow()).extracting(SandboxAllow::origin).containsExactly("workspace:sandbox.allow[0]", "cli");
        assertThat(m.passthrough().permits("WS_VAR")).isTrue();
        assertThat(m.passthrough().permits("FOO")).isTrue();
        assertThatThrownBy(() -> MergedDecl.merge(ws, List.of(), Optional.empty(), Optional.of(ws)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
