package dev.magus.landlock.denials.infer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class CommandLineTest {

    @Test
    void inline_scripts_of_perl_and_shells() {
        assertThat(new CommandLine(List.of("perl", "-w", "-e", "a;", "-E", "b;")).inlineScript("-e")).contains("a;\nb;");
        assertThat(new CommandLine(List.of("/bin/bash", "-ec", "echo x > f", "name")).inlineScript("-c"))
                .contains("echo x > f");
        assertThat(new CommandLine(List.of("bash", "script.sh", "-c", "x")).inlineScript("-c")).isEmpty();
        assertThat(new CommandLine(List.of("python3", "-c", "x")).inlineScript("-c")).isEmpty();
        assertThat(CommandLine.NONE.inlineScript("-e")).isEmpty();
    }

    @Test
    void curls_output_file_in_every_spelling() {
        assertThat(new CommandLine(List.of("curl", "-sS", "-o", "/h/f", "u")).curlOutput()).contains("/h/f");
        assertThat(new CommandLine(List.of("curl", "-o/h/f", "u")).curlOutput()).contains("/h/f");
        assertThat(new CommandLine(List.of("curl", "--output=/h/f", "u")).curlOutput()).contains("/h/f");
        assertThat(new CommandLine(List.of("curl", "u")).curlOutput()).isEmpty();
        assertThat(new CommandLine(List.of("wget", "-o", "/h/f")).curlOutput()).isEmpty();
    }

    @Test
    void a_line_tells_a_redirection_from_a_command_by_the_file_it_names() {
        Path rc = Path.of("/h/.bashrc");
        assertThat(CommandLine.access("echo x >> /h/.bashrc", rc, AccessHint.UNKNOWN)).isEqualTo(AccessHint.WRITE);
        assertThat(CommandLine.access("cat < \"/h/.bashrc\"", rc, AccessHint.UNKNOWN)).isEqualTo(AccessHint.READ);
        assertThat(CommandLine.access("/h/.bashrc 2>/dev/null", rc, AccessHint.UNKNOWN)).isEqualTo(AccessHint.UNKNOWN);
        assertThat(CommandLine.access("cat <<EOF", rc, AccessHint.UNKNOWN)).isEqualTo(AccessHint.UNKNOWN);
        assertThat(CommandLine.access("open(my $f, '>>', $p) or die", rc, AccessHint.READ)).isEqualTo(AccessHint.WRITE);
        assertThat(CommandLine.line("a\nb", 2)).contains("b");
        assertThat(CommandLine.line("a", 3)).isEmpty();
    }
}
