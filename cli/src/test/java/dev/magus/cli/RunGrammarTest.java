package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.server.client.FastGrammar;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * run's options are written four times: its model (RunModel), the fast client's grammar
 * (FastGrammar, which FastArgs reads), the native client's option loop (magus-client.c) and
 * bin/magus's list of the options that take a value. A copy that drifts forwards a run it
 * should not, or reads a value as an option (bin/magus would take {@code --env V=-h} for a
 * help request): each is held to the model here.
 */
class RunGrammarTest {
    /** run's options that no forwarding client reads: the full command line runs them here. */
    private static final Set<String> LOCAL_ONLY = Set.of("--local", "--events", "--log", "--ui", "--kernel-audit",
            "--supervise", "-h", "--help", "-V", "--version");

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
    void theFastClientsGrammarIsRunsWithEveryOtherOptionLocal() {
        Model m = model();
        assertThat(m.flags()).containsAll(FastGrammar.FLAGS);
        assertThat(m.valued()).containsAll(FastGrammar.VALUED);
        Set<String> classified = new TreeSet<>(FastGrammar.FLAGS);
        classified.addAll(FastGrammar.VALUED);
        assertThat(classified).doesNotContainAnyElementsOf(LOCAL_ONLY);
        classified.addAll(LOCAL_ONLY);
        assertThat(classified).as("every option of run is the fast clients' or local (a new one must be one of them)")
                .isEqualTo(m.all());
    }

    @Test
    void theNativeClientReadsTheSameGrammar() throws Exception {
        String c = read("server", "src", "main", "c", "magus-client.c");
        String loop = c.substring(c.indexOf("/* FastArgs.parse"), c.indexOf("/* ServerLocation.find"));
        List<Set<String>> groups = new ArrayList<>();
        Matcher g = Pattern.compile("if \\(((?:\\s*(?:\\|\\|)?\\s*!strcmp\\(name, \"[^\"]+\"\\))+)\\)\\s*\\{").matcher(loop);
        while (g.find()) {
            Set<String> names = new TreeSet<>();
            Matcher n = Pattern.compile("strcmp\\(name, \"([^\"]+)\"\\)").matcher(g.group(1));
            while (n.find()) {
                names.add(n.group(1));
            }
            groups.add(names);
        }
        assertThat(groups).as("the native client's flag and valued option branches").contains(
                new TreeSet<>(FastGrammar.FLAGS), new TreeSet<>(FastGrammar.VALUED));
    }

    @Test
    void binMagusSkipsTheValueOfExactlyTheOptionsThatTakeOne() throws Exception {
        String script = read("bin", "magus");
        Matcher m = Pattern.compile("(?m)^\\s*(-[-\\w|]+)\\) value=yes").matcher(script);
        assertThat(m.find()).as("bin/magus's case of the options that take a value").isTrue();
        assertThat(new TreeSet<>(List.of(m.group(1).split("\\|")))).isEqualTo(model().valued());
        // The words bin/magus reads among them: --local (never forwarded) and the help ones (no archive).
        assertThat(script).contains("\"$a\" == --local").contains("\"$a\" == --help").contains("\"$a\" == --version");
        assertThat(model().all()).contains("--local", "-h", "--help", "-V", "--version");
    }
}
