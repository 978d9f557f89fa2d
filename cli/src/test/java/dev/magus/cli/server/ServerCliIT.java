package dev.magus.cli.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/magus server start|status|stop} and {@code magus run} forwarding by itself, as a
 * person runs them, with a fake home and runtime dir (never the user's).
 */
class ServerCliIT {
    @TempDir
    Path root;

    record Ran(int status, String out) {
    }

    Ran magus(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of("..", "bin", "magus").toAbsolutePath().normalize().toString());
        command.addAll(List.of(args));
        return ran(command, env);
    }

    /** {@code command} in the workspace with exactly {@code env}, stdin closed; stdout and stderr together. */
    private Ran ran(List<String> command, Map<String, String> env) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).directory(root.resolve("ws").toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return new Ran(p.exitValue(), out);
    }

    @Test
    void startRunForwardsStatusCountsStop() throws Exception {
        boolean linux = System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux");
        String why = "server test skipped: forwarded runs start children, which needs Linux (os "
                + System.getProperty("os.name") + ")";
        if (!linux) {
            System.err.println(why);
        }
        Assumptions.assumeTrue(linux, why);
        Path home = Files.createDirectories(root.resolve("home"));
        Path runtime = Files.createDirectories(root.resolve("runtime"));
        Files.createDirectories(root.resolve("ws"));
        Map<String, String> env = new java.util.HashMap<>();
        env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("HOME", home.toString());
        env.put("XDG_RUNTIME_DIR", runtime.toString());
        env.put("TMPDIR", Files.createDirectories(root.resolve("tmp")).toString());
        if (System.getenv("JAVA_HOME") != null) {
            env.put("JAVA_HOME", System.getenv("JAVA_HOME"));
        }
        try {
            assertThat(magus(env, "server", "status").status()).isEqualTo(3);
            Ran started = magus(env, "server", "start");
            assertThat(started.status()).as(started.out()).isZero();
            assertThat(runtime.resolve("magus/server.sock")).exists();
            // A scrape the running server does not serve is an error naming what it serves, never a quiet 0.
            Ran metrics = magus(env, "server", "start", "--metrics", "127.0.0.1:0");
            assertThat(metrics.status()).as(metrics.out()).isEqualTo(1);
            assertThat(metrics.out()).contains("already running").contains("without metrics").contains("127.0.0.1:0");
            assertThat(magus(env, "server", "start").status()).as("a plain start: nothing to do").isZero();

            Ran forwarded = magus(env, "run", "--", "sh", "-c", "printf forwarded; exit 4");
            assertThat(forwarded.status()).isEqualTo(4);
            // No magus.yaml: the run says it is unconfined, forwarded as locally.
            assertThat(forwarded.out()).startsWith("magus: unconfined (no magus.yaml here or above): sh runs")
                    .endsWith("\nforwarded");
            assertThat(magus(env, "run", "--local", "--", "true").status()).isZero();

            Ran status = magus(env, "server", "status");
            assertThat(status.status()).isZero();
            assertThat(status.out()).contains("magus server running").containsPattern(
                    "magus\\.server\\.forwarded\\{outcome=started\\}\\s+1\\b");

            fastClient(env);
            declinedRunsHereInTheSameProcess(env);
            nestedMagusRunsInsideTheRunItComesFrom(env);
            nestedGrantNeverWidensTheRunItIsIn(env);
            targetOpAndHostsAreForwarded(env);
            allowHostRunsAreForwarded(env);
            askIsServedAndNeedsTheClientsTerminal(env);
        } finally {
            Ran stopped = magus(env, "server", "stop");
            assertThat(stopped.out()).contains("stopped");
        }
        assertThat(runtime.resolve("magus/server.sock")).doesNotExist();
    }

    /**
     * A plain run goes through the fast client, which loads none of picocli, Reactor, Netty,
     * Jackson's databind, SnakeYAML or JNA (its JSON is jackson-core's streaming API), and shows what the full command line shows: the same bytes,
     * the same diagnostic lines, the same status; and so does the native client, when built.
     */
    private void fastClient(Map<String, String> env) throws Exception {
        Path ws = root.resolve("ws");
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        Files.createDirectories(root.resolve("home/.ssh"));
        Files.writeString(root.resolve("home/.ssh/id_rsa"), "secret");
        Path classes = root.resolve("classes.log");
        Map<String, String> logged = new java.util.HashMap<>(env);
        // The Java fast client, also where the build made the native one (bin/magus prefers it).
        logged.put("MAGUS_CLIENT", "java");
        logged.put("JAVA_TOOL_OPTIONS", "-Xlog:class+load:file=" + classes);
        String[] cmd = {"sh", "-c", "printf 'a\\r\\nb\\n'; cat $HOME/.ssh/id_rsa; exit 5"};
        Ran fast = magus(logged, concat(new String[] {"run", "--"}, cmd));
        // Classes only: the run that writes the fast client's CDS archive also logs every class-path jar it opens.
        String loaded = String.join("\n", Files.readString(classes).lines().filter(l -> !l.contains("] opened: ")).toList());
        assertThat(loaded).contains("dev.magus.server.client.FastClient", "com.fasterxml.jackson.core.JsonFactory")
                .doesNotContain("picocli", "reactor.", "io.netty", "com.fasterxml.jackson.databind", "org.yaml", "com.sun.jna");
        // The same environment (JAVA_TOOL_OPTIONS too, which the sandbox drops and counts).
        logged.put("JAVA_TOOL_OPTIONS", "-Xlog:class+load:file=" + root.resolve("local-classes.log"));
        Ran local = magus(logged, concat(new String[] {"run", "--local", "--"}, cmd));
        assertThat(fast.status()).isEqualTo(local.status()).isNotZero();
        assertThat(fast.out()).contains("a\r\nb\n").contains("MGS2001").contains(".ssh/id_rsa");
        assertThat(magusLines(fast.out())).isEqualTo(magusLines(local.out()));
        Path client = Path.of("target", "native", "magus-client");
        if (!Files.isExecutable(client)) {
            System.err.println("native client case skipped: " + client + " was not built (the build found no C compiler, cc)");
            return;
        }
        // The native client: no JVM at all, and the same bytes, lines and status (same number of variables too).
        logged.put("MAGUS_CLIENT", "native");
        logged.put("JAVA_TOOL_OPTIONS", "-Xlog:class+load:file=" + root.resolve("native-classes.log"));
        Ran nat = magus(logged, concat(new String[] {"run", "--"}, cmd));
        assertThat(root.resolve("native-classes.log")).doesNotExist();
        assertThat(nat.status()).isEqualTo(local.status());
        assertThat(nat.out()).contains("a\r\nb\n");
        assertThat(magusLines(nat.out())).isEqualTo(magusLines(local.out()));
    }

    /**
     * {@code --ask} is the server's run too: it asks the client, which asks on its terminal. A
     * client with no controlling terminal hears the usage error a local run says, from the server
     * (an answered command), and nothing runs: never run without asking, never handed back.
     */
    private void askIsServedAndNeedsTheClientsTerminal(Map<String, String> env) throws Exception {
        double answered = forwarded(env, "answered");
        Ran ask = withoutTerminal(env, "run", "-v", "--ask", "--", "sh", "-c", "echo RAN");
        assertThat(ask.status()).as(ask.out()).isEqualTo(125);
        assertThat(ask.out()).contains("--ask needs a terminal to ask on").doesNotContain("served by this process only")
                .doesNotContain("RAN");
        assertThat(forwarded(env, "answered")).isEqualTo(answered + 1);
    }

    /** {@link #magus} in a session of its own: no controlling terminal, whatever the build's. */
    private Ran withoutTerminal(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("/usr/bin/setsid", "-w",
                Path.of("..", "bin", "magus").toAbsolutePath().normalize().toString()));
        command.addAll(List.of(args));
        return ran(command, env);
    }

    /** A client whose floor the server's workspace does not meet: said so, and run in the same process, locally. */
    private void declinedRunsHereInTheSameProcess(Map<String, String> env) throws Exception {
        Files.writeString(root.resolve("ws/magus.yaml"), "sandbox:\n  mode: best-effort\n");
        Map<String, String> strict = new java.util.HashMap<>(env);
        strict.put("MAGUS_SANDBOX", "required");
        Ran declined = magus(strict, "run", "--", "sh", "-c", "printf here; exit 6");
        assertThat(declined.status()).isEqualTo(6);
        assertThat(declined.out()).contains("weaker than this run's required; running it here instead").contains("here");
    }

    /**
     * A magus a forwarded run starts (a recursive magus) gets the server's address and that
     * run's own token re-injected (the server's own business, no line of the outer run: the same
     * run with {@code --local} has no pointers); the command it runs sees neither (withheld, without a line).
     * Its own run is not forwarded: the seccomp layer refuses {@code socket(AF_UNIX)} to a
     * workspace that declares no Unix sockets, so the nested magus runs it itself, inside the
     * run it comes from (Landlock domains stack), and only the outer run counts as forwarded.
     * Where the workspace declares Unix sockets, the server declines what that run's token asks
     * (NestedRunTokenTest), with the same result.
     */
    private void nestedMagusRunsInsideTheRunItComesFrom(Map<String, String> env) throws Exception {
        Files.writeString(root.resolve("ws/magus.yaml"), "sandbox:\n  mode: required\n");
        String magus = Path.of("..", "bin", "magus").toAbsolutePath().normalize().toString();
        double before = forwarded(env, "started");
        double declinedBefore = forwarded(env, "declined");
        Ran nested = magus(env, "run", "-v", "--", magus, "run", "-v", "--", "sh", "-c",
                "echo \"address=${MAGUS_SERVER_ADDRESS:-none} token=${MAGUS_PROC_TOKEN:-none}\"");
        assertThat(nested.status()).as(nested.out()).isZero();
        // The pointers are the server's own: no MGS2008 line of either run, as the same runs with --local
        // have none to re-inject or withhold. The nested magus withholds them from its child all the same.
        assertThat(nested.out()).contains("address=none token=none").doesNotContain("re-injected")
                .doesNotContain("withheld MAGUS_PROC_TOKEN").doesNotContain("withheld MAGUS_SERVER_ADDRESS");
        assertThat(forwarded(env, "started")).isEqualTo(before + 1);
        assertThat(forwarded(env, "declined")).as("refused the socket, it never asked").isEqualTo(declinedBefore);
    }

    /**
     * The outer run's policy caps every run started inside it, forwarded or not: a nested
     * magus granting itself {@code ~/.ssh} reads nothing there. Forwarded, the server used to
     * start the inner run outside the outer run's domain and the key was printed.
     */
    private void nestedGrantNeverWidensTheRunItIsIn(Map<String, String> env) throws Exception {
        Files.writeString(root.resolve("ws/magus.yaml"), "sandbox:\n  mode: required\n");
        Path ssh = Files.createDirectories(root.resolve("home/.ssh"));
        Files.writeString(ssh.resolve("id_rsa"), "KEY-c0ffee");
        String magus = Path.of("..", "bin", "magus").toAbsolutePath().normalize().toString();
        String[] inner = {magus, "run", "--allow", ssh.toString(), "--", "cat", ssh.resolve("id_rsa").toString()};
        for (String client : List.of("native", "java")) {
            Map<String, String> e = new java.util.HashMap<>(env);
            e.put("MAGUS_CLIENT", client);
            for (String[] outer : List.of(new String[] {"run", "--"}, new String[] {"run", "--local", "--"})) {
                Ran ran = magus(e, concat(outer, inner));
                assertThat(ran.out()).as(client + " " + String.join(" ", outer) + ": " + ran.out())
                        .doesNotContain("KEY-c0ffee").contains("Permission denied");
                assertThat(ran.status()).as(ran.out()).isNotZero();
            }
        }
    }

    /** {@code magus target NAME}, {@code --op} and {@code --allow-host} go to the server too (protocol version 3). */
    private void targetOpAndHostsAreForwarded(Map<String, String> env) throws Exception {
        Path api = Files.createDirectories(root.resolve("ws/api"));
        Files.writeString(root.resolve("ws/magus.yaml"), "sandbox:\n  mode: required\nprojects:\n  - dir: api\n"
                + "    targets:\n      where:\n        run: [sh, -c, 'pwd; echo \"args=$*\"', sh]\n");
        double before = forwardedStarted(env);
        Ran target = magus(env, "target", "where", "one", "two");
        assertThat(target.status()).as(target.out()).isZero();
        assertThat(target.out()).contains(api.toRealPath() + "\nargs=one two\n");
        Ran op = magus(env, "run", "--op", "python", "--allow-host", "example.org", "--", "sh", "-c", "echo op-ran");
        assertThat(op.status()).as(op.out()).isZero();
        assertThat(op.out()).contains("op-ran");
        assertThat(forwardedStarted(env)).isEqualTo(before + 2);
    }

    /** {@code --allow-host} travels in the frame, so such a run is forwarded like any other. */
    private void allowHostRunsAreForwarded(Map<String, String> env) throws Exception {
        Files.writeString(root.resolve("ws/magus.yaml"), "sandbox:\n  mode: best-effort\n  network:\n    mode: proxy\n");
        double before = forwardedStarted(env);
        Ran run = magus(env, "run", "--allow-host", "repo.example.test", "--", "sh", "-c",
                "echo \"proxy=${HTTP_PROXY:-none}\"");
        assertThat(run.status()).as(run.out()).isZero();
        assertThat(run.out()).contains("proxy=http://127.0.0.1:");
        assertThat(forwardedStarted(env)).isEqualTo(before + 1);
    }

    private double forwardedStarted(Map<String, String> env) throws Exception {
        return forwarded(env, "started");
    }

    private double forwarded(Map<String, String> env, String outcome) throws Exception {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("magus\\.server\\.forwarded\\{outcome=" + outcome
                + "\\}\\s+(\\d+)").matcher(magus(env, "server", "status").out());
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    /**
     * The lines magus said, MGS2003 aside: it is shown on the first run that drops a given set of
     * variables in a workspace, whichever path that run takes, and is quiet on the next, so two
     * runs in a row differ by it on any two paths.
     */
    private static List<String> magusLines(String out) {
        return out.lines().filter(l -> l.startsWith("magus: ") && !l.startsWith("magus: MGS2003 ")).sorted().toList();
    }

    private static String[] concat(String[] a, String[] b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
