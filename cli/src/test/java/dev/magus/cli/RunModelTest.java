package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * run's model is built with picocli's programmatic API (RunModel), not from annotations: every
 * option must reach its field, with the defaults the fields had as annotated fields.
 */
class RunModelTest {

    private static RunCommand parsed(RunCommand c, String... args) {
        new CommandLine(c.model()).parseArgs(args);
        c.options.bind(c);
        return c;
    }

    @Test
    void every_option_reaches_its_field() {
        RunCommand c = parsed(new RunCommand(), "--op", "py", "--target", "app/build", "--sandbox=required",
                "--env", "A=1", "--env=B=2", "--unset", "C", "--allow", "out:rw", "--pass", "GO_*", "--events", "ev.ndjson",
                "--allow-host", "*.example.org", "--no-stdin", "--log", "log.txt", "--kernel-audit", "--ui", "-v", "-q",
                "--local", "--", "ls", "-la", "--local");
        assertThat(c.op).contains("py");
        assertThat(c.target).contains("app/build");
        assertThat(c.sandbox).contains("required");
        assertThat(c.env).containsExactly("A=1", "B=2");
        assertThat(c.unset).containsExactly("C");
        assertThat(c.allow).containsExactly("out:rw");
        assertThat(c.pass).containsExactly("GO_*");
        assertThat(c.events).contains("ev.ndjson");
        assertThat(c.allowHost).containsExactly("*.example.org");
        assertThat(c.stdin).isFalse();
        assertThat(c.log).contains("log.txt");
        assertThat(c.kernelAudit).isTrue();
        assertThat(c.ui).isTrue();
        assertThat(c.verbose).isTrue();
        assertThat(c.quiet).isTrue();
        assertThat(c.local).isTrue();
        assertThat(c.command).containsExactly("ls", "-la", "--local");
    }

    @Test
    void an_option_not_given_keeps_the_default_of_its_annotated_field() {
        RunCommand c = parsed(new RunCommand(), "true");
        for (Optional<String> o : List.of(c.op, c.target, c.sandbox, c.events, c.log)) {
            assertThat(o).isEmpty();
        }
        for (List<String> l : List.of(c.env, c.unset, c.allow, c.pass, c.allowHost)) {
            assertThat(l).isEmpty();
        }
        assertThat(c.stdin).isTrue();
        assertThat(List.of(c.kernelAudit, c.ui, c.verbose, c.quiet, c.local)).containsOnly(false);
        assertThat(c.command).containsExactly("true");
        assertThat(parsed(new RunCommand(), "--stdin").stdin).isTrue();
        assertThat(parsed(new RunCommand()).command).isNull();
    }

    @Test
    void run_and_target_carry_picocli_s_standard_help_options_and_their_own_names() {
        for (RunCommand c : List.of(new RunCommand(), new TargetCommand())) {
            var spec = c.model();
            assertThat(spec.mixinStandardHelpOptions()).isTrue();
            assertThat(spec.findOption("-h")).extracting(OptionSpec::usageHelp).isEqualTo(true);
            assertThat(spec.findOption("--version")).extracting(OptionSpec::versionHelp).isEqualTo(true);
            assertThat(spec.userObject()).isSameAs(c);
            assertThat(spec.name()).isEqualTo(c.getClass().getAnnotation(CommandLine.Command.class).name());
            assertThat(spec.usageMessage().description())
                    .containsExactly(c.getClass().getAnnotation(CommandLine.Command.class).description());
        }
    }
}
