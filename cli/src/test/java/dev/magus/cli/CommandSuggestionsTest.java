package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.abi.LandlockProbe;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A mistyped command or option is answered with the closest names by edit distance. */
class CommandSuggestionsTest {
    @TempDir
    Path dir;

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
