package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.SandboxException;
import dev.magus.orchestrator.binding.Sandbox;
import dev.magus.orchestrator.binding.SandboxFiles;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The binding layer's files API allows exactly what a confined child's kernel allows. For random
 * trees of directories, files and links (relative and absolute, dangling too), random grants in
 * {@code magus.yaml} and random sequences of calls (read, list, create or truncate, append, make a
 * directory, remove, rename), the same tree is laid out twice: a confined {@code python3} makes the
 * calls in one, a {@link Sandbox} session makes them in the other, and each call's outcome is
 * compared as allowed, refused (the kernel's EACCES, EPERM or, for a rename, EXDEV; the session's
 * {@link SandboxException}) or failed for another reason (a missing name, a directory not empty).
 * A call one side refuses and the other allows is a disagreement. Control files are not named:
 * the binding layer refuses writing them where the kernel cannot.
 */
class BindingKernelDifferentialTest {
    private static final int TREES = 50;
    private static final int CALLS = 110;
    private static final String[] DIRS = {"o", "o/a", "o/a/b", "o/c", "o/c/d", "ws/w1", "ws/w1/w2", "home/h1", "home/h1/h2"};
    private static final String[] MODES = {"ro", "rw", "rx", "rwx"};
    private static final String[] OPS = {"read", "list", "write", "append", "mkdir", "delete", "rename"};

    @TempDir
    Path root;

    private static final String CHILD = """
            import json, os, sys, errno
            for op, a, b in json.loads(sys.argv[1]):
                try:
                    if op == 'read':
                        open(a, 'rb').read()
                    elif op == 'list':
                        os.listdir(a)
                    elif op == 'write':
                        open(a, 'wb').write(b'x')
                    elif op == 'append':
                        open(a, 'ab').write(b'y')
                    elif op == 'mkdir':
                        os.mkdir(a)
                    elif op == 'delete':
                        if os.path.isdir(a) and not os.path.islink(a):
                            os.rmdir(a)
                        else:
                            os.unlink(a)
                    elif op == 'rename':
                        os.rename(a, b)
                    print('ok', flush=True)
                except OSError as e:
                    refused = e.errno in (errno.EACCES, errno.EPERM) or (op == 'rename' and e.errno == errno.EXDEV)
                    print('refused' if refused else 'failed', flush=True)
            """;

    record Call(String op, String a, String b) {
    }

    @Test
    void theSessionsFilesAllowExactlyWhatTheKernelAllowsAConfinedChild() throws IOException {
        TestHost.assumeLandlock();
        Path python = Path.of("/usr/bin/python3");
        if (!Files.isExecutable(python)) {
            System.err.println("skipped: no /usr/bin/python3 to make the kernel's calls");
        }
        Assumptions.assumeTrue(Files.isExecutable(python), "skipped: no /usr/bin/python3 to make the kernel's calls");
        int pairs = 0;
        java.util.Map<String, Integer> outcomes = new java.util.TreeMap<>();
        List<String> disagreements = new ArrayList<>();
        for (int tree = 0; tree < TREES; tree++) {
            long seed = 0x5eed0000L + tree;
            Layout kernelSide = Layout.make(root.resolve("k" + tree), seed);
            Layout bindingSide = Layout.make(root.resolve("b" + tree), seed);
            List<Call> calls = calls(new Random(seed * 31 + 7));

            List<String> kernel = kernel(kernelSide, python, calls);
            List<String> binding = binding(bindingSide, calls);
            assertThat(kernel).as("the child's answers, seed %d", seed).hasSize(calls.size());
            for (int i = 0; i < calls.size(); i++) {
                pairs++;
                String k = kernel.get(i);
                String s = binding.get(i);
                outcomes.merge(calls.get(i).op + " kernel " + k + " binding " + s, 1, Integer::sum);
                boolean disagree = k.equals("refused") != s.equals("refused") && !(s.equals("refused") && k.equals("failed"));
                if (disagree) {
                    disagreements.add("seed " + seed + " call " + i + " " + calls.get(i) + ": kernel " + k + ", binding " + s
                            + "\n" + kernelSide.yaml);
                }
            }
        }
        System.err.println("binding vs kernel: " + pairs + " pairs, " + disagreements.size() + " disagreements; " + outcomes);
        assertThat(pairs).isGreaterThanOrEqualTo(5000);
        // Both verdicts occur often, for every kind of call: the comparison can fail.
        for (String op : OPS) {
            assertThat(outcomes).as(op).containsKey(op + " kernel ok binding ok");
            assertThat(outcomes).as(op).containsKey(op + " kernel refused binding refused");
        }
        assertThat(disagreements).isEmpty();
    }

    private static List<String> kernel(Layout l, Path python, List<Call> calls) {
        StringBuilder json = new StringBuilder("[");
        for (Call c : calls) {
            json.append(json.length() > 1 ? "," : "").append("[\"").append(c.op).append("\",\"").append(l.path(c.a)).append("\",\"")
                    .append(c.b == null ? "" : l.path(c.b)).append("\"]");
        }
        json.append(']');
        TestHost t = l.host;
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, python.toString(), "-c", CHILD, json.toString()).build());
        List<dev.magus.events.RunEvent> events = TestHost.events(run);
        run.result().block(TestHost.DEADLINE);
        return TestHost.lines(events, dev.magus.events.RunEvent.Stream.STDOUT);
    }

    private static List<String> binding(Layout l, List<Call> calls) {
        List<String> out = new ArrayList<>();
        try (Sandbox session = Sandbox.open(l.host.orchestrator(), l.host.host(), RunRequest.builder(l.host.workspace, "true").build())) {
            SandboxFiles f = session.files();
            for (Call c : calls) {
                Path a = Path.of(l.path(c.a));
                try {
                    switch (c.op) {
                        case "read" -> f.readAllBytes(a);
                        case "list" -> f.list(a);
                        case "write" -> f.write(a, "x".getBytes(StandardCharsets.UTF_8));
                        case "append" -> f.append(a, "y".getBytes(StandardCharsets.UTF_8));
                        case "mkdir" -> f.createDirectory(a);
                        case "delete" -> f.delete(a);
                        case "rename" -> f.move(a, Path.of(l.path(c.b)));
                        default -> throw new IllegalStateException(c.op);
                    }
                    out.add("ok");
                } catch (SandboxException e) {
                    out.add("refused");
                } catch (IOException | RuntimeException e) {
                    out.add("failed");
                }
            }
        }
        return out;
    }

    /** Paths named by the calls: existing ones of the tree, and new names beside them. */
    private static List<Call> calls(Random rnd) {
        List<String> names = new ArrayList<>();
        for (String d : DIRS) {
            names.add(d);
            names.add(d + "/f0");
            names.add(d + "/f1");
            names.add(d + "/l0");
            names.add(d + "/new" + rnd.nextInt(4));
        }
        names.add("ws");
        names.add("o");
        names.add("home");
        List<Call> calls = new ArrayList<>();
        for (int i = 0; i < CALLS; i++) {
            String op = OPS[rnd.nextInt(OPS.length)];
            String a = names.get(rnd.nextInt(names.size()));
            String b = op.equals("rename") ? names.get(rnd.nextInt(names.size())) : null;
            calls.add(new Call(op, a, b));
        }
        return calls;
    }

    /** One random tree under its own root: a fake home, a workspace with grants, an outside area. */
    static final class Layout {
        final TestHost host;
        final Path base;
        String yaml;

        private Layout(TestHost host, Path base) {
            this.host = host;
            this.base = base;
        }

        String path(String rel) {
            return base.resolve(rel).toString();
        }

        static Layout make(Path root, long seed) throws IOException {
            Files.createDirectories(root);
            Path base = root.toRealPath();
            // TestHost's home and workspace are base/home and base/ws.
            TestHost host = new TestHost(base);
            Layout l = new Layout(host, base);
            Random rnd = new Random(seed);
            List<String> made = new ArrayList<>();
            for (String d : DIRS) {
                if (rnd.nextInt(5) > 0 || d.equals("o") || d.equals("o/a") || d.equals("ws/w1")) {
                    Path dir = base.resolve(d);
                    if (Files.isDirectory(dir.getParent())) {
                        Files.createDirectories(dir);
                        made.add(d);
                        for (int f = 0; f < 2; f++) {
                            if (rnd.nextBoolean()) {
                                Files.writeString(dir.resolve("f" + f), "content");
                                made.add(d + "/f" + f);
                            }
                        }
                    }
                }
            }
            for (String d : List.copyOf(made)) {
                if (Files.isDirectory(base.resolve(d)) && rnd.nextInt(3) == 0) {
                    String to = rnd.nextInt(6) == 0 ? "o/missing" : made.get(rnd.nextInt(made.size()));
                    Path link = base.resolve(d).resolve("l0");
                    Path relative = link.getParent().relativize(base.resolve(to));
                    Path target = rnd.nextBoolean() ? base.resolve(to) : relative.toString().isEmpty() ? Path.of(".") : relative;
                    Files.createSymbolicLink(link, target);
                }
            }
            StringBuilder yaml = new StringBuilder("sandbox:\n  mode: required\n");
            int grants = rnd.nextInt(4);
            if (grants > 0) {
                yaml.append("  allow:\n");
                for (int g = 0; g < grants; g++) {
                    String p = made.get(rnd.nextInt(made.size()));
                    if (p.startsWith("ws")) {
                        p = "o/a";
                    }
                    yaml.append("    - path: \"").append(base.resolve(p)).append("\"\n      mode: ").append(MODES[rnd.nextInt(MODES.length)])
                            .append('\n');
                }
            }
            l.yaml = yaml.toString();
            host.yaml(l.yaml);
            return l;
        }
    }
}
