package dev.magus.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A mistyped name is answered with the closest names by edit distance. */
class SuggestionsTest {
    @Test
    void aSwapOfTwoLettersIsOneEdit() {
        assertThat(Suggestions.distance("rnu", "run")).isEqualTo(1);
        assertThat(Suggestions.distance("rnu", "learn")).isEqualTo(4);
        assertThat(Suggestions.closest("rnu", List.of("run", "learn", "lease", "trust"))).containsExactly("run");
        assertThat(Suggestions.closest("polcy", List.of("policy", "probe"))).containsExactly("policy");
        assertThat(Suggestions.closest("zzzzzz", List.of("run", "policy"))).isEmpty();
    }
}
