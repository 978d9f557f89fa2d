package dev.magus.landlock.denials;

import dev.magus.events.DetailKey;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.RunEvent;
import dev.magus.landlock.denials.infer.CommandLine;
import dev.magus.landlock.denials.infer.KernelDenials;
import dev.magus.landlock.denials.infer.ProcCwd;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checked-in corpus of captured lines, replayed without a kernel: each run's lines give
 * exactly one diagnostic, with the code and path expected, against a policy that refuses
 * the fake home; and none at all when the policy allows everything.
 */
class CorpusTest {

    /** {@code argv}: the command as it was run (placeholders unexpanded), when the corpus says it. */
    record Entry(String name, Operation op, String path, List<String[]> lines, List<String> argv) {
        KernelDenials denials(dev.magus.landlock.denials.DenialConfirmer policy, Fixture f) {
            // Replayed, the child has gone: where it had cd'd to is what its command line says.
            return new KernelDenials(policy, new KernelDenials.Child(f.ws(), new ProcCwd(Integer.MAX_VALUE - 1, f.ws()), -1,
                    new CommandLine(argv.stream().map(f::expand).toList())));
        }
    }

    static List<Entry> corpus() throws IOException {
        String text;
        try (InputStream in = CorpusTest.class.getResourceAsStream("corpus.txt")) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<Entry> entries = new ArrayList<>();
        Entry current = null;
        for (String line : text.split("\n", -1)) {
            if (line.startsWith("#") || line.isEmpty()) {
                continue;
            }
            if (line.startsWith("=== ")) {
                String[] head = line.substring(4).split(" \\| ");
                current = new Entry(head[0], Operation.valueOf(head[1]), head[2], new ArrayList<>(), new ArrayList<>());
                entries.add(current);
            } else if (line.startsWith("argv| ")) {
                current.argv().addAll(List.of(line.substring(6).split("\t", -1)));
            } else {
                current.lines().add(new String[] {line.substring(0, 3), line.substring(5)});
            }
        }
        return entries;
    }

    @TempDir
    Path root;

    @Test
    void the_corpus_covers_the_tools_the_issue_names() throws IOException {
        List<String> names = corpus().stream().map(Entry::name).toList();
        for (String tool : List.of("cat", "cp", "rsync", "tar", "sed", "mktemp", "sort", "perl", "curl", "sh", "bash",
                "python3", "node", "java", "git", "gcc", "make", "mvn", "cargo")) {
            assertThat(names).as("a captured run of " + tool).anyMatch(n -> n.startsWith(tool));
        }
    }

    @TestFactory
    Stream<DynamicTest> each_captured_run_gives_exactly_one_diagnostic() throws IOException {
        return corpus().stream().map(e -> DynamicTest.dynamicTest(e.name(), () -> {
            Fixture f = Fixture.create(root.resolve(e.name().replace(' ', '-')));
            // The files the live run had beside the fixture (a path's state decides some accesses).
            for (Scenario sc : Scenario.all()) {
                if (sc.name().equals(e.name())) {
                    for (var file : sc.files().entrySet()) {
                        Files.writeString(Path.of(f.expand(file.getKey())), file.getValue());
                    }
                }
            }
            KernelDenials denials = e.denials(new PrefixConfirmer(f.home()), f);
            List<Diagnostic> found = replay(e, f, denials);
            assertThat(found).as(e.name()).hasSize(1);
            Diagnostic d = found.get(0);
            assertThat(d.operation()).as(e.name()).isEqualTo(e.op());
            assertThat(d.code()).isEqualTo(PrefixConfirmer.codeOf(e.op()));
            assertThat(d.subject()).isEqualTo(f.expand(e.path()));
            assertThat(d.layer()).isEqualTo(Layer.KERNEL);
            assertThat(d.source()).isIn("inferred:stdout", "inferred:stderr");
        }));
    }

    @TestFactory
    Stream<DynamicTest> nothing_is_reported_when_the_policy_allows_the_path() throws IOException {
        return corpus().stream().map(e -> DynamicTest.dynamicTest(e.name(), () -> {
            Fixture f = Fixture.create(root.resolve(e.name().replace(' ', '-')));
            PrefixConfirmer allowsAll = new PrefixConfirmer();
            assertThat(replay(e, f, e.denials(allowsAll, f))).isEmpty();
            assertThat(allowsAll.asked()).as("the policy was asked about the candidate").isNotEmpty();
        }));
    }

    /** A first report the user sees: not a repeat, and not a quiet one (a tool's known companion access). */
    private static boolean shown(Diagnostic d) {
        return !d.details().containsKey(DetailKey.REPEAT.key()) && !d.details().containsKey(DetailKey.QUIET.key());
    }

    private static List<Diagnostic> replay(Entry e, Fixture f, KernelDenials denials) {
        List<Diagnostic> found = new ArrayList<>();
        for (String[] l : e.lines()) {
            RunEvent.Stream stream = l[0].equals("out") ? RunEvent.Stream.STDOUT : RunEvent.Stream.STDERR;
            denials.accept(stream, f.expand(l[1])).stream()
                    .filter(CorpusTest::shown).forEach(found::add);
        }
        denials.finish().stream().filter(CorpusTest::shown).forEach(found::add);
        return found;
    }
}
