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
        assertThat(cmd.err()).isEqualTo("magus: Unmatched argument at index 0: 'rnu' (did you mean 'magus run'?);"
                + " see 'magus --help'\n");
        Cli.Result opt = Cli.run(Cli.context(host, ws, LandlockProbe.fixed(7)), "policy", "--alow", "x");
        assertThat(opt.status()).isEqualTo(ExitCodes.USAGE);
        assertThat(opt.err()).isEqualTo("magus: Unknown options: '--alow', 'x' (did you mean 'magus policy --allow'?);"
                + " see 'magus policy --help'\n");
    }

    @Test
    void anUnknownOptionIsOneLinePointingAtTheHelpNotTheWholeUsage() throws Exception {
        Path ws = java.nio.file.Files.createDirectories(dir.resolve("ws"));
        var host = Cli.fakeHost(dir, Map.of());
        Cli.Result far = Cli.run(Cli.context(host, ws, LandlockProbe.fixed(7)), "run", "--frobnicate", "--", "true");
        assertThat(far.status()).isEqualTo(ExitCodes.USAGE);
        assertThat(far.err()).isEqualTo("magus: Unknown option: '--frobnicate'; see 'magus run --help'\n");
        assertThat(far.out()).isEmpty();
        Cli.Result close = Cli.run(Cli.context(host, ws, LandlockProbe.fixed(7)), "run", "--sandbx=off", "--", "true");
        assertThat(close.err()).isEqualTo("magus: Unknown option: '--sandbx=off' (did you mean 'magus run --sandbox'?);"
                + " see 'magus run --help'\n");
        Cli.Result target = Cli.run(Cli.context(host, ws, LandlockProbe.fixed(7)), "target", "--verbos", "build");
        assertThat(target.err()).isEqualTo("magus: Unknown option: '--verbos' (did you mean 'magus target --verbose'?);"
                + " see 'magus target --help'\n");
    }

    @Test
    void everyOtherUsageErrorIsOneLineTooAndOnlyACommandOfCommandsShowsItsUsage() throws Exception {
        Path ws = java.nio.file.Files.createDirectories(dir.resolve("ws"));
        var host = Cli.fakeHost(dir, Map.of());
        Cli.Result noValue = Cli.run(Cli.context(host, ws, LandlockProbe.fixed(7)), "run", "--env");
        assertThat(noValue.status()).isEqualTo(ExitCodes.USAGE);
        assertThat(noValue.err()).startsWith("magus: Missing required parameter for option '--env'")
                .endsWith("; see 'magus run --help'\n").doesNotContain("Usage:").hasLineCount(1);
        Cli.Result noCommand = Cli.run(Cli.context(host, ws, LandlockProbe.fixed(7)), "run");
        assertThat(noCommand.status()).isEqualTo(ExitCodes.USAGE);
        assertThat(noCommand.err()).startsWith("magus: Missing required parameter: 'CMD'")
                .endsWith("; see 'magus run --help'\n").hasLineCount(1);
        Cli.Result bare = Cli.run(Cli.context(host, ws, LandlockProbe.fixed(7)));
        assertThat(bare.status()).isEqualTo(ExitCodes.USAGE);
        assertThat(bare.err()).startsWith("magus: Missing required subcommand").contains("Usage: magus").contains("run");
    }
}
