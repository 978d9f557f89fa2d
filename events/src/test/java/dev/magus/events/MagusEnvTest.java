package dev.magus.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MagusEnvTest {

    @Test
    void nestedExactlyWhenTheRunIdIsSetAndNotEmpty() {
        assertThat(MagusEnv.nested(Map.of())).isFalse();
        assertThat(MagusEnv.nested(Map.of(MagusEnv.RUN_ID, ""))).isFalse();
        assertThat(MagusEnv.nested(Map.of(MagusEnv.RUN_ID, "run-parent"))).isTrue();
        assertThat(MagusEnv.nested(Map.of(MagusEnv.RUN_ID, " "))).as("only the empty value counts as unset").isTrue();
        // Another magus variable is not the marker: a caller may set MAGUS_SANDBOX at the top level.
        assertThat(MagusEnv.nested(Map.of(MagusEnv.SANDBOX, "required", MagusEnv.STATE_DIR, "/s"))).isFalse();
        Map<String, String> nullValue = new HashMap<>();
        nullValue.put(MagusEnv.RUN_ID, null);
        assertThat(MagusEnv.nested(nullValue)).isFalse();
    }

    @Test
    void everyNameCarriesThePrefix() throws IllegalAccessException {
        int names = 0;
        for (var f : MagusEnv.class.getFields()) {
            if (f.getType() == String.class) {
                assertThat((String) f.get(null)).as(f.getName()).startsWith(MagusEnv.PREFIX);
                names++;
            }
        }
        assertThat(names).isEqualTo(11);
    }
}
