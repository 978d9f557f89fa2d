package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code --help} is a request, never an error: every command prints its usage and exits 0. */
class CliHelpTest {

    private static void collect(CommandLine cl, List<String> path, List<List<String>> out) {
        out.add(path);
        cl.getSubcommands().forEach((name, sub) -> {
            List<String> p = new ArrayList<>(path);
            p.add(name);
            if (!out.contains(p)) {
                collect(sub, p, out);
            }
        });
    }

    @Test
    void every_command_and_subcommand_answers_help_with_its_usage_and_status_0() {
        List<List<String>> commands = new ArrayList<>();
        collect(Main.commandLine(CommandLine.defaultFactory()), List.of(), commands);
        assertThat(commands).contains(List.of("run"), List.of("learn"), List.of("server"));
        for (List<String> command : commands) {
            CommandLine cl = Main.commandLine(CommandLine.defaultFactory());
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            cl.setOut(new PrintWriter(out));
            cl.setErr(new PrintWriter(err));
            List<String> args = new ArrayList<>(command);
            args.add("--help");
            int status = cl.execute(args.toArray(String[]::new));
            assertThat(status).as("magus %s: %s%s", args, out, err).isZero();
            assertThat(out.toString()).as("magus %s", args).contains("Usage: magus");
            assertThat(err.toString()).as("magus %s", args).isEmpty();
        }
    }
}
