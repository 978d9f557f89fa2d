package dev.magus.landlock.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a spawn request refuses before any descriptor or thread exists. */
class SpawnRequestTest {
    private static final Path SH = Path.of("/bin/sh");
    private static final Path CWD = Path.of("/");

    @Test
    void environmentNamesAndValuesAreChecked() {
        for (String bad : List.of("", "A=B", "A" + (char) 0)) {
            assertThatThrownBy(() -> SpawnRequest.of(SH, List.of(), Map.of(bad, "v"), CWD))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bad environment variable name");
        }
        Map<String, String> nullValue = new HashMap<>();
        nullValue.put("TOKEN", null);
        assertThatThrownBy(() -> SpawnRequest.of(SH, List.of(), nullValue, CWD))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("environment variable TOKEN has no value (null)");
    }

    @Test
    void theEnvironmentIsSortedAndTheExecutableMustBeAbsolute() {
        SpawnRequest r = SpawnRequest.of(SH, List.of("-c", "true"), Map.of("B", "2", "A", "1", "EMPTY", ""), CWD);
        assertThat(r.environment().keySet()).containsExactly("A", "B", "EMPTY");
        assertThat(r.argv()).containsExactly("/bin/sh", "-c", "true");
        assertThatThrownBy(() -> SpawnRequest.of(Path.of("sh"), List.of(), Map.of(), CWD))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("absolute");
    }
}
