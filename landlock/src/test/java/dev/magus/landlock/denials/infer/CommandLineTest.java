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
        assertThat(new CommandLine(List.of("python3", "-c", "x")).inlineScript("-c")).contains("x");
        assertThat(new CommandLine(List.of("python3", "x.py", "-c")).inlineScript("-c")).isEmpty();
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

    @Test
    void a_shell_script_places_each_command_where_its_cds_left_it() {
        Path start = Path.of("/w");
        CommandLine sh = new CommandLine(List.of("sh", "-c", "cd sub && curl -sS -o ../../home/c.txt file:///w/m.c"));
        assertThat(sh.curlOutput(start)).contains(Path.of("/home/c.txt"));
        assertThat(sh.changedInto(start)).containsExactly(Path.of("/w/sub"));
        CommandLine remote = new CommandLine(List.of("sh", "-c", "cd /h && curl -sSO 'file:///w/m.c?x=1'"));
        assertThat(remote.curlOutput(start)).contains(Path.of("/h/m.c"));
        assertThat(new CommandLine(List.of("git", "-C", "sub", "status")).changedInto(start)).containsExactly(Path.of("/w/sub"));
        assertThat(new CommandLine(List.of("tar", "cf", "x.tar", "--directory=/t", ".")).changedInto(start))
                .containsExactly(Path.of("/t"));
        // A cd to a word the shell expands leaves the directory unknown: nothing after it is placed.
        assertThat(new CommandLine(List.of("sh", "-c", "cd $D && curl -o f u")).curlOutput(start)).isEmpty();
    }

    @Test
    void a_python_line_says_the_access_by_the_call_that_names_the_file() {
        Path f = Path.of("/h/.bashrc");
        assertThat(CommandLine.pythonAccess("open('/h/.bashrc', 'a').write('x')", f)).contains(AccessHint.WRITE);
        assertThat(CommandLine.pythonAccess("open('/h/.bashrc').read()", f)).contains(AccessHint.READ);
        assertThat(CommandLine.pythonAccess("open('/h/.bashrc', mode='rb')", f)).contains(AccessHint.READ);
        assertThat(CommandLine.pythonAccess("shutil.copy('/h/.bashrc', 'x')", f)).contains(AccessHint.READ);
        assertThat(CommandLine.pythonAccess("shutil.copy('x', '/h/.bashrc')", f)).contains(AccessHint.WRITE);
        assertThat(CommandLine.pythonAccess("pathlib.Path('/h/.bashrc').write_text('x')", f)).contains(AccessHint.WRITE);
        assertThat(CommandLine.pythonAccess("os.listdir('/h')", Path.of("/h"))).contains(AccessHint.READ);
        assertThat(CommandLine.pythonAccess("print(1)", f)).isEmpty();
    }
}
