package dev.magus.env;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.Code;
import dev.magus.events.SandboxException;
import java.util.List;
import org.junit.jupiter.api.Test;

class VariableNamesTest {

    @Test
    void portableShellNamesOnly() {
        for (String ok : List.of("A", "_", "_X1", "npm_config_cache", "MISE_DATA_DIR")) {
            assertThat(VariableNames.isValid(ok)).as(ok).isTrue();
        }
        for (String bad : List.of("", "1A", "A-B", "A=B", "A B", "BASH_FUNC_x%%", "É", "A\0")) {
            assertThat(VariableNames.isValid(bad)).as(bad).isFalse();
        }
    }

    @Test
    void aRefusedNameIsShownWithoutControlCharacters() {
        assertThatThrownBy(() -> VariableNames.require("A\u001b[2J", "--env"))
                .isInstanceOfSatisfying(SandboxException.class, e -> {
                    assertThat(e.code()).isEqualTo(Code.MGS2004);
                    assertThat(e.diagnostic().source()).isEqualTo("--env");
                    assertThat(e.diagnostic().subject()).isEqualTo("A\\x1b[2J");
                    assertThat(e.getMessage()).doesNotContain("\u001b");
                });
    }
}
