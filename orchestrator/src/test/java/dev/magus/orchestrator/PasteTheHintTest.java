package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.RunEvent;
import dev.magus.orchestrator.run.RunRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every hint works when pasted. Each scenario is a tool of the denial corpus refused by a real
 * confined run; the {@code allow_yaml} of each denial is pasted under {@code sandbox:} in
 * {@code magus.yaml} (read by the real reader, as a person's edit would be), doing what its
 * comment says (creating a directory that does not exist yet), and the scenario is run again.
 * A tool may need a second grant only after the first (sed reads, then writes its temp file),
 * so this repeats a few times; the path of every pasted hint must never be refused again, and the
 * last run passes with no denial at all.
 */
class PasteTheHintTest {
    private static final int MAX_ROUNDS = 4;
    private static final Pattern MISSING = Pattern.compile("# (\\S+) does not exist yet");

    @TempDir
    Path root;

    /** @param files files to lay out first ({@code ${HOME}}/{@code ${WS}} paths), a trailing / makes a directory */
    record Case(String name, String yaml, Map<String, String> files, String... argv) {
    }

    static List<Case> cases() {
        return List.of(
                new Case("cat a tool's cache", "", Map.of("${HOME}/.cache/tool/index", "x\n"),
                        "cat", "${HOME}/.cache/tool/index"),
                new Case("cp into a directory", "", Map.of("${HOME}/out/", "", "${WS}/m.c", "int x;\n"),
                        "cp", "${WS}/m.c", "${HOME}/out/m.c"),
                new Case("mkdir of a directory to create", "", Map.of(),
                        "mkdir", "-p", "${HOME}/.newtool/state"),
                new Case("tee", "", Map.of("${HOME}/logs/", ""), "tee", "${HOME}/logs/t.log"),
                new Case("sed -i reads, then its temp file", "", Map.of("${HOME}/proj/f.txt", "a\n"),
                        "sed", "-i", "s/a/b/", "${HOME}/proj/f.txt"),
                new Case("sort temp dir", "", Map.of("${HOME}/sorttmp/", "", "${WS}/lines.txt", lines()),
                        "sort", "-S", "1k", "-T", "${HOME}/sorttmp", "-o", "${WS}/sorted.txt", "${WS}/lines.txt"),
                new Case("mktemp template", "", Map.of("${HOME}/scratch/", ""), "mktemp", "${HOME}/scratch/t.XXXXXX"),
                new Case("perl inplace", "", Map.of("${HOME}/src/m.c", "a\n"), "perl", "-pi", "-e", "s/a/b/",
                        "${HOME}/src/m.c"),
                new Case("curl -o", "", Map.of("${HOME}/dl/", "", "${WS}/m.c", "int x;\n"),
                        "curl", "-o", "${HOME}/dl/m.c", "file://${WS}/m.c"),
                new Case("python3 write", "", Map.of("${HOME}/pyout/", ""),
                        "/usr/bin/python3", "-c", "open('${HOME}/pyout/x.txt', 'w').write('x')"),
                new Case("a write inside a declared read-only tree widens it",
                        "  allow:\n    - path: \"~/.m2\"\n      mode: ro\n",
                        Map.of("${HOME}/.m2/repository/org/", ""),
                        "mkdir", "-p", "${HOME}/.m2/repository/org/apache/commons"));
    }

    private static String lines() {
        StringBuilder b = new StringBuilder();
        for (int i = 30000; i > 0; i--) {
            b.append(i).append('\n');
        }
        return b.toString();
    }

    @TestFactory
    Stream<DynamicTest> each_hint_pasted_lets_the_rerun_pass() {
        return cases().stream().map(c -> DynamicTest.dynamicTest(c.name(), () -> run(c)));
    }

    private void run(Case c) throws Exception {
        TestHost.assumeLandlock();
        if (which(c.argv()[0]).isEmpty()) {
            String why = c.argv()[0] + " is not installed here; scenario '" + c.name() + "' skipped";
            System.err.println("SKIPPED: " + why);
            Assumptions.assumeTrue(false, why);
        }
        TestHost t = new TestHost(Files.createDirectories(root.resolve(c.name().replaceAll("\\W+", "-"))));
        for (Map.Entry<String, String> f : c.files().entrySet()) {
            String p = expand(t, f.getKey());
            if (p.endsWith("/")) {
                Files.createDirectories(Path.of(p));
            } else {
                Files.createDirectories(Path.of(p).getParent());
                Files.writeString(Path.of(p), f.getValue());
            }
        }
        String[] argv = java.util.Arrays.stream(c.argv()).map(a -> expand(t, a)).toArray(String[]::new);
        StringBuilder allow = new StringBuilder(c.yaml().isEmpty() ? "  allow:\n" : c.yaml());
        List<String> hinted = new ArrayList<>();
        List<String> log = new ArrayList<>();
        int pasted = 0;
        for (int round = 0; round < MAX_ROUNDS; round++) {
            t.yaml("sandbox:\n  mode: required\n" + allow);
            List<RunEvent> events = TestHost.events(t.orchestrator().submit(RunRequest.builder(t.workspace, argv).build()));
            List<Diagnostic> denials = events.stream().filter(e -> e instanceof RunEvent.Diag)
                    .map(e -> ((RunEvent.Diag) e).diagnostic()).filter(d -> d.layer() == Layer.KERNEL).toList();
            log.add("round " + round + ":\n" + TestHost.text(events) + "magus.yaml:\n" + allow);
            for (Diagnostic d : denials) {
                assertThat(hinted).as("a pasted hint did not allow %s; %s", d.subject(), log)
                        .doesNotContain(d.operation() + " " + d.subject());
            }
            if (denials.isEmpty()) {
                assertThat(pasted).as("the scenario was refused at first, so a hint was pasted: %s", log).isPositive();
                int status = events.stream().filter(e -> e instanceof RunEvent.Exited).map(e -> ((RunEvent.Exited) e).status())
                        .findFirst().orElse(-1);
                assertThat(status).as("the rerun passes: %s", log).isZero();
                return;
            }
            for (Diagnostic d : denials) {
                assertThat(d.details().get("class")).as("%s is a hint, not an attack: %s", d.subject(), log).isEqualTo("hint");
                String yaml = d.details().get("allow_yaml");
                assertThat(yaml).as(d.toString()).startsWith("sandbox:\n  allow:\n");
                // Pasted under the existing sandbox: and allow: keys, as a person would.
                allow.append(yaml.substring("sandbox:\n  allow:\n".length()));
                Matcher m = MISSING.matcher(yaml);
                if (m.find()) {
                    // What the comment says to do before the rule can grant anything.
                    Files.createDirectories(Path.of(m.group(1).replaceFirst("^~", t.home.toString())));
                }
                hinted.add(d.operation() + " " + d.subject());
                pasted++;
            }
        }
        throw new AssertionError("still refused after " + MAX_ROUNDS + " rounds of pasting: " + log);
    }

    private static String expand(TestHost t, String s) {
        return s.replace("${HOME}", t.home.toString()).replace("${WS}", t.workspace.toString());
    }

    private static Optional<Path> which(String tool) {
        if (tool.startsWith("/")) {
            return Files.isExecutable(Path.of(tool)) ? Optional.of(Path.of(tool)) : Optional.empty();
        }
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, tool);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}
