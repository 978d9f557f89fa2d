package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * run's options are written once, in its model (RunModel): the server parses a forwarded run's
 * words with it (ServedCommandLine), and neither forwarding client reads any (each sends the
 * words as given). One copy is left, libexec/magus-jvm's list of the options that take a value,
 * which it reads to skip the socket for {@code --local} and to keep help runs from making a class
 * archive: it is held to the model here, and the clients are held to reading no option at all.
 */
class RunGrammarTest {
    private record Model(Set<String> flags, Set<String> valued) {
        Set<String> all() {
            Set<String> all = new TreeSet<>(flags);
            all.addAll(valued);
            return all;
        }
    }

    private static Model model() {
        CommandSpec spec = new RunCommand().model();
        Set<String> flags = new TreeSet<>();
        Set<String> valued = new TreeSet<>();
        for (OptionSpec o : spec.options()) {
            boolean flag = o.typeInfo().isBoolean();
            for (String name : o.names()) {
                (flag ? flags : valued).add(name);
                if (o.negatable() && name.startsWith("--")) {
                    flags.add("--no-" + name.substring(2));
                }
            }
        }
        return new Model(flags, valued);
    }

    /** The checkout's file {@code first/more...} (the tests run in cli/). */
    private static String read(String first, String... more) throws Exception {
        return Files.readString(Path.of("..", first).resolve(Path.of("", more)));
    }

    @Test
    void neitherForwardingClientReadsAnOptionOfRun() throws Exception {
        String c = read("server", "src", "main", "c", "magus-client.c");
        String java = read("server", "src", "main", "java", "dev", "magus", "server", "client", "FastClient.java");
        for (String option : model().all()) {
            if (option.equals("--local")) {
                continue; // written, never read: a declined run goes to the full command line as run --local
            }
            assertThat(c).as("magus-client.c names %s", option).doesNotContain("\"" + option + "\"");
            assertThat(java).as("FastClient names %s", option).doesNotContain("\"" + option + "\"");
        }
    }

    @Test
    void theJvmSideSkipsTheValueOfExactlyTheOptionsThatTakeOne() throws Exception {
        String script = read("libexec", "magus-jvm");
        Matcher m = Pattern.compile("(?m)^\\s*(-[-\\w|]+)\\) value=yes").matcher(script);
        assertThat(m.find()).as("libexec/magus-jvm's case of the options that take a value").isTrue();
        assertThat(new TreeSet<>(List.of(m.group(1).split("\\|")))).isEqualTo(model().valued());
        // The words it reads among them: --local (never forwarded) and the help ones (no archive).
        assertThat(script).contains("\"$a\" == --local").contains("\"$a\" == --help")
                .contains("\"$a\" == --version");
        assertThat(model().all()).contains("--local", "-h", "--help", "-V", "--version");
    }
}
