package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.abi.LandlockProbe;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A mistyped command or option is answered with the closest names by edit distance. */
class SuggestionsTest {
    @TempDir
    Path dir;

    @Test
    void aSwapOfTwoLettersIsOneEdit() {
        assertThat(Suggestions.distance("rnu", "run")).isEqualTo(1);
        assertThat(Suggestions.distance("rnu", "learn")).isEqualTo(4);
        assertThat(Suggestions.closest("rnu", List.of("run", "learn", "lease", "trust"))).containsExactly("run");
        assertThat(Suggestions.closest("polcy", List.of("policy", "probe"))).containsExactly("policy");
        assertThat(Suggestions.closest("zzzzzz", List.of("run", "policy"))).isEmpty();
    }

    @Test
    void theCommandLineSuggestsTheClosestCommandAndOption() throws Exception {
        Path ws = java.nio.file.Files.createDirectories(dir.resolve("ws"));
        var host = Cli.fakeHost(dir, Map.of());
        Cli.Result cmd = Cli.run(Cli.context(host, ws, LandlockProbe.fixed(7)), "rnu");
        assertThat(cmd.status()).isEqualTo(ExitCodes.USAGE);
        assertThat(cmd.err()).contains("Did you mean: magus run?").doesNotContain("learn");
        Cli.Result opt = Cli.run(Cli.context(host, ws, LandlockProbe.fixed(7)), "policy", "--alow", "x");
        assertThat(opt.err()).contains("Did you mean: policy --allow?");
    }
}
