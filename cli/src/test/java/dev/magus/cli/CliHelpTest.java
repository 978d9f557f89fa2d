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

    /**
     * {@code magus run ...} builds only run's model (MagusCommand.SUBCOMMANDS); what it prints
     * and returns must not tell: the help and a usage error of every command and subcommand,
     * each on the full command line and on the one built for its arguments.
     */
    @Test
    void a_command_line_built_for_its_subcommand_answers_as_the_full_one() {
        for (var e : MagusCommand.SUBCOMMANDS.entrySet()) {
            assertThat(e.getValue().getAnnotation(CommandLine.Command.class).name()).isEqualTo(e.getKey());
            List<List<String>> commands = new ArrayList<>();
            collect(Main.commandLine(CommandLine.defaultFactory()).getSubcommands().get(e.getKey()), List.of(e.getKey()),
                    commands);
            for (List<String> command : commands) {
                for (String last : List.of("--help", "--no-such-option")) {
                    List<String> args = new ArrayList<>(command);
                    args.add(last);
                    String[] a = args.toArray(String[]::new);
                    assertThat(answer(Main.commandLine(CommandLine.defaultFactory(), a), a)).as("magus %s", args)
                            .isEqualTo(answer(Main.commandLine(CommandLine.defaultFactory()), a));
                }
            }
            assertThat(Main.commandLine(CommandLine.defaultFactory(), e.getKey()).getSubcommands()).containsOnlyKeys(e.getKey());
        }
    }

    private static String answer(CommandLine cl, String[] args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int status = cl.execute(args);
        return status + "\n" + out + "\n" + err;
    }
}
