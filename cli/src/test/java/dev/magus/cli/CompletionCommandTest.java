package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.abi.LandlockProbe;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompletionCommandTest {
    @TempDir
    Path dir;

    @Test
    void bashLoadsTheScriptAndCompletesSubcommandsAndOptions() throws Exception {
        Cli.Result r = Cli.run(Cli.context(Cli.fakeHost(dir, Map.of()), dir, LandlockProbe.fixed(7)), "completion", "bash");
        assertThat(r.status()).as(r.err()).isZero();
        Path script = Files.writeString(dir.resolve("magus.bash"), r.out());
        // Source it, then ask the completion function what follows "magus " and "magus run --san".
        String probe = "source " + script + "\n"
                + "COMP_WORDS=(magus ''); COMP_CWORD=1; COMP_LINE='magus '; COMP_POINT=${#COMP_LINE}; _complete_magus magus '' magus;"
                + " echo \"TOP ${COMPREPLY[*]}\"\n"
                + "COMP_WORDS=(magus run --sand); COMP_CWORD=2; COMP_LINE='magus run --sand'; COMP_POINT=${#COMP_LINE};"
                + " _complete_magus magus --sand run; echo \"RUN ${COMPREPLY[*]}\"\n"
                + "complete -p magus\n";
        Process bash = new ProcessBuilder("bash", "--norc", "-c", probe).redirectErrorStream(true).start();
        String out = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(bash.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(out).as(out).contains("-F _complete_magus magus");
        assertThat(out.lines().filter(l -> l.startsWith("TOP ")).findFirst().orElse(""))
                .contains("run", "policy", "trust", "learn", "completion");
        assertThat(out.lines().filter(l -> l.startsWith("RUN ")).findFirst().orElse("")).contains("--sandbox");
    }

    @Test
    void anUnknownShellIsRefusedNamingTheChoices() {
        Cli.Result r = Cli.run(Cli.context(Cli.fakeHost(dir, Map.of()), dir, LandlockProbe.fixed(7)), "completion", "fish");
        assertThat(r.status()).isNotZero();
        assertThat(r.err()).contains("bash", "zsh");
    }
}
