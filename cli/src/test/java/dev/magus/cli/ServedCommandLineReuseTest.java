package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.orchestrator.run.RunServices;
import dev.magus.server.RunGrammar;
import dev.magus.server.protocol.Frame;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server parses every run with command lines it built before (ServedCommandLine keeps them):
 * what a run's words make must never depend on the words parsed before them. Each case is parsed
 * by one long-lived parser, after every other case, and concurrently, and compared with what a
 * parser that never parsed anything makes of the same words.
 */
class ServedCommandLineReuseTest {
    @TempDir
    Path cwd;
    private final RunServices services = new RunServices();

    @AfterEach
    void closeServices() {
        services.close();
    }

    /** Words that set every kind of value (lists, single values, flags, the negatable --stdin), and none. */
    private static final List<List<String>> CASES = List.of(
            List.of("run", "--env", "A=1", "--env", "B=2", "--unset", "C", "--allow", "/opt/x:rw", "--pass", "TOKEN_*",
                    "--allow-host", "example.org", "--op", "build", "--sandbox", "required", "--no-stdin", "-v",
                    "--fail-on-denial", "--supervise", "--", "sh", "-c", "true"),
            List.of("run", "--", "true"),
            List.of("run", "-q", "true", "--env", "X=1"),
            List.of("run", "--no-stdin", "--", "cat"),
            List.of("run", "cat"),
            List.of("run", "--ask", "--ask-timeout", "7", "--", "cat"),
            List.of("run", "--help"),
            List.of("run", "--version"),
            List.of("run", "--bogus", "--", "true"),
            List.of("run", "--sandbox", "sideways", "--", "true"),
            List.of("run"),
            List.of("run", "--local", "--", "true"),
            List.of("run", "--events", "-", "-v", "--", "true"),
            List.of("target", "build", "--release"),
            List.of("target", "--env", "A=1", "build"),
            List.of("target"),
            List.of("target", "--help"),
            List.of("target", "--target", "build", "x"));

    private RunGrammar.Parsed parse(ServedCommandLine parser, List<String> words) {
        return parser.parse(new Frame.Command(words, cwd.toString(), Map.of("HOME", cwd.toString(), "PATH", "/usr/bin:/bin"),
                false, false, true));
    }

    /** A value that compares by content, the answer's bytes included. */
    private static Object comparable(RunGrammar.Parsed p) {
        if (p instanceof RunGrammar.Answer a) {
            return List.of(a.status(), new String(a.out(), StandardCharsets.UTF_8), new String(a.err(), StandardCharsets.UTF_8));
        }
        return p;
    }

    private List<Object> fresh() {
        List<Object> expected = new ArrayList<>();
        for (List<String> words : CASES) {
            expected.add(comparable(parse(new ServedCommandLine(services), words)));
        }
        return expected;
    }

    @Test
    void aParseMeansWhatItWouldOnAParserThatParsedNothingBefore() throws Exception {
        Files.writeString(cwd.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        List<Object> expected = fresh();
        // Sanity: the cases make runs, answers and the client's own runs, not one kind.
        assertThat(expected).hasAtLeastOneElementOfType(RunGrammar.Serve.class).hasAtLeastOneElementOfType(RunGrammar.Local.class)
                .anyMatch(e -> e instanceof List<?> l && l.get(0).equals(0)).anyMatch(e -> e instanceof List<?> l && !l.get(0).equals(0));
        ServedCommandLine reused = new ServedCommandLine(services);
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < CASES.size(); i++) {
                // Every case after every other one: forwards, then backwards.
                int k = round % 2 == 0 ? i : CASES.size() - 1 - i;
                assertThat(comparable(parse(reused, CASES.get(k)))).as("%s in round %d", CASES.get(k), round)
                        .isEqualTo(expected.get(k));
            }
        }
    }

    @Test
    void concurrentParsesEachMeanTheirOwnWords() throws Exception {
        List<Object> expected = fresh();
        ServedCommandLine reused = new ServedCommandLine(services);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int offset = t;
                done.add(pool.submit(() -> {
                    for (int n = 0; n < 5 * CASES.size(); n++) {
                        int k = (n + offset * 5) % CASES.size();
                        assertThat(comparable(parse(reused, CASES.get(k)))).as("%s", CASES.get(k)).isEqualTo(expected.get(k));
                    }
                    return null;
                }));
            }
            for (Future<?> d : done) {
                d.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aPooledLineKeepsNoValueOfTheRunItParsed() throws Exception {
        ServedCommandLine reused = new ServedCommandLine(services);
        String secret = "SECRET=x-4f1c9e";
        for (List<String> words : List.of(List.of("run", "--env", secret, "--", "true"),
                List.of("run", "--env", secret, "--bogus", "--", "true"), List.of("target", "--env", secret, "build"))) {
            RunGrammar.Parsed p = parse(reused, words);
            assertThat(p).as("%s", words).isNotNull();
            assertThat(holding(reused, "x-4f1c9e")).as("what the pooled lines hold after %s", words).isEmpty();
        }
        // Sanity: the walk sees a value the lines do hold while they parse.
        assertThat(holding(reused, "--stdin")).isNotEmpty();
    }

    /**
     * Where, in everything of the command line's or picocli's reachable from {@code root}
     * (collections, maps, arrays and text included), a text containing {@code value} is held.
     */
    private static List<String> holding(Object root, String value) throws IllegalAccessException {
        List<String> found = new ArrayList<>();
        java.util.Set<Object> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        java.util.ArrayDeque<Object[]> todo = new java.util.ArrayDeque<>();
        todo.add(new Object[] {root, "parser"});
        while (!todo.isEmpty()) {
            Object[] next = todo.poll();
            Object o = next[0];
            String where = (String) next[1];
            if (o == null || !seen.add(o)) {
                continue;
            }
            if (o instanceof CharSequence || o instanceof java.io.StringWriter) {
                if (o.toString().contains(value)) {
                    found.add(where);
                }
                continue;
            }
            if (o instanceof java.util.Collection<?> c) {
                c.forEach(e -> todo.add(new Object[] {e, where + "[]"}));
                continue;
            }
            if (o instanceof Map<?, ?> m) {
                m.forEach((k, v) -> {
                    todo.add(new Object[] {k, where + ".key"});
                    todo.add(new Object[] {v, where + "[" + k + "]"});
                });
                continue;
            }
            if (o instanceof java.util.Optional<?> opt) {
                opt.ifPresent(v -> todo.add(new Object[] {v, where + ".get"}));
                continue;
            }
            if (o instanceof Object[] a) {
                for (Object e : a) {
                    todo.add(new Object[] {e, where + "[]"});
                }
                continue;
            }
            String type = o.getClass().getName();
            if (!type.startsWith("dev.magus.cli.") && !type.startsWith("picocli.")) {
                continue;
            }
            for (Class<?> k = o.getClass(); k != null && k != Object.class; k = k.getSuperclass()) {
                for (java.lang.reflect.Field f : k.getDeclaredFields()) {
                    if (java.lang.reflect.Modifier.isStatic(f.getModifiers()) || f.getType().isPrimitive()) {
                        continue;
                    }
                    try {
                        f.setAccessible(true);
                    } catch (RuntimeException e) {
                        continue;
                    }
                    todo.add(new Object[] {f.get(o), where + "." + f.getName()});
                }
            }
        }
        return found;
    }
}
