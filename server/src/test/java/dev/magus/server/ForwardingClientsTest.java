package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.server.client.FullCommandLineStub;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The two forwarding clients of {@code bin/magus run}, each as a real process against a real
 * server: the Java fast client ({@code FastClient}) and the native one ({@code magus-client},
 * built from src/main/c only where a C compiler ran; without it its cases say why they are
 * skipped). Both must give the same bytes, statuses, signals and diagnostic lines, and hand a
 * run they cannot forward to the full command line (here {@link FullCommandLineStub}).
 */
class ForwardingClientsTest {
    /** Where the build puts the native client (server/pom.xml). */
    static final Path NATIVE = Path.of("target", "native", "magus-client");

    enum Client { JAVA, NATIVE }

    @TempDir
    Path root;
    Fixture f;

    @BeforeEach
    void start() throws Exception {
        f = new Fixture(root);
        f.yaml("sandbox:\n  mode: required\n");
    }

    @AfterEach
    void stop() {
        f.close();
    }

    record Ran(int status, byte[] out, String err) {
        String text() {
            return new String(out, StandardCharsets.UTF_8);
        }

        List<String> magusLines() {
            return err.lines().filter(l -> l.startsWith("magus: ")).sorted().toList();
        }
    }

    static void assumeBuilt(Client client) {
        if (client == Client.NATIVE && !Files.isExecutable(NATIVE)) {
            String why = "native client test skipped: " + NATIVE + " was not built (the build found no C compiler, cc)";
            System.err.println(why);
            Assumptions.assumeTrue(false, why);
        }
    }

    static List<String> command(Client client, String... args) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = System.getProperty("java.class.path");
        List<String> c = new ArrayList<>();
        if (client == Client.JAVA) {
            c.addAll(List.of(java, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                    "-Djava.nio.channels.spi.SelectorProvider=sun.nio.ch.EPollSelectorProvider", "-cp", cp,
                    "-Dmagus.main=" + FullCommandLineStub.class.getName(), "dev.magus.server.client.FastClient"));
        } else {
            List<String> fallback = List.of(java, "-XX:+UseSerialGC", "-cp", cp, FullCommandLineStub.class.getName());
            c.add(NATIVE.toAbsolutePath().toString());
            c.add(Integer.toString(fallback.size()));
            c.addAll(fallback);
        }
        c.addAll(List.of(args));
        return c;
    }

    Process spawn(Client client, Map<String, String> env, String... args) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command(client, args)).directory(f.workspace.toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        return pb.start();
    }

    Ran run(Client client, Map<String, String> env, byte[] stdin, String... args) throws Exception {
        return run(command(client, args), env, stdin);
    }

    /** {@code argv} (a client's command line, or one that starts it) run to its end in the workspace. */
    Ran run(List<String> argv, Map<String, String> env, byte[] stdin) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(argv).directory(f.workspace.toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        Process p = pb.start();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Thread t = drain(p.getErrorStream(), err);
        p.getOutputStream().write(stdin);
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the client ends").isTrue();
        t.join();
        return new Ran(p.exitValue(), out, err.toString(StandardCharsets.UTF_8));
    }

    Ran run(Client client, String... args) throws Exception {
        return run(client, f.env, new byte[0], args);
    }

    private static Thread drain(InputStream in, ByteArrayOutputStream to) {
        Thread t = new Thread(() -> {
            try {
                in.transferTo(to);
            } catch (IOException e) {
                // the process is gone
            }
        });
        t.start();
        return t;
    }

    private double forwardedStarted() {
        var c = f.registry.find("magus.server.forwarded").tag("outcome", "started").counter();
        return c == null ? 0 : c.count();
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void bytesStatusAndDiagnosticLinesAreTheRuns(Client client) throws Exception {
        assumeBuilt(client);
        Files.createDirectories(f.home.resolve(".ssh"));
        Files.writeString(f.home.resolve(".ssh/id_rsa"), "secret");
        Ran r = run(client, "run", "--", "sh", "-c",
                "printf 'a\\r\\nb\\000c\\377'; printf 'e1\\n' >&2; cat \"$HOME/.ssh/id_rsa\"; exit 5");
        assertThat(r.status()).isEqualTo(5);
        assertThat(r.out()).isEqualTo(new byte[] {'a', '\r', '\n', 'b', 0, 'c', (byte) 0xff});
        assertThat(r.err()).contains("e1\n").doesNotContain("secret");
        assertThat(r.magusLines()).anySatisfy(l -> assertThat(l).startsWith("magus: MGS2001 ").contains(".ssh/id_rsa")
                .endsWith("; see 'magus explain MGS2001'"));
        assertThat(forwardedStarted()).isEqualTo(1.0);
    }

    /**
     * A forwarded {@code --ask} run's ask reaches the client, which puts the local prompt's
     * question; without a controlling terminal (a session of its own) it says so and denies, and
     * the child's read fails. (AskIT answers it on a real terminal.)
     */
    @ParameterizedTest
    @EnumSource(Client.class)
    void anAskWithNoTerminalToAskOnIsSaidAndDenied(Client client) throws Exception {
        assumeBuilt(client);
        java.util.Optional<String> gap = dev.magus.landlock.supervise.Support.approvalGap();
        gap.ifPresent(why -> System.err.println("forwarded --ask case skipped: " + why));
        Assumptions.assumeTrue(gap.isEmpty(), () -> "forwarded --ask case skipped: " + gap.orElse(""));
        // A name that would rewrite the terminal's line is shown escaped, by both clients alike.
        Path secret = Files.writeString(Files.createDirectories(f.home.resolve(".aws")).resolve("cred\u001b[2K\u202eentials"),
                "AKIAFAKE\n");
        String shown = f.home.resolve(".aws") + "/cred\\x1b[2K\\u202eentials";
        List<String> argv = new ArrayList<>(List.of("/usr/bin/setsid", "-w"));
        argv.addAll(command(client, "run", "--ask", "--", "sh", "-c", "cat '" + secret + "'; echo cat=$?"));
        Ran r = run(argv, f.env, new byte[0]);
        assertThat(r.text()).isEqualTo("cat=1\n");
        assertThat(r.err()).contains("magus: cat (pid ")
                .contains(") asks to read " + shown + ", which the policy refuses.\n"
                        + "magus: [o] allow once  [r] allow for this run  [d] deny? (no terminal to ask on: denied)\n");
        assertThat(r.status()).isZero();
    }

    @Test
    void theNativeClientPrintsWhatTheJavaClientPrints() throws Exception {
        assumeBuilt(Client.NATIVE);
        Files.createDirectories(f.home.resolve(".ssh"));
        Files.writeString(f.home.resolve(".ssh/id_rsa"), "secret");
        String script = "printf 'x\\ty\\r\\n\\342\\200\\256z'; cat \"$HOME/.ssh/id_rsa\" \"$HOME/.ssh/\\033[2Jno\"; exit 3";
        Ran java = run(Client.JAVA, "run", "-v", "--env", "A=1", "--", "sh", "-c", script);
        Ran c = run(Client.NATIVE, "run", "-v", "--env", "A=1", "--", "sh", "-c", script);
        assertThat(c.status()).isEqualTo(java.status()).isEqualTo(3);
        assertThat(c.out()).isEqualTo(java.out());
        assertThat(c.magusLines()).as("the native client's stderr:%n%s%nthe Java client's:%n%s", c.err(), java.err())
                .isEqualTo(java.magusLines()).isNotEmpty();
        assertThat(c.err().lines().filter(l -> !l.startsWith("magus: ")).sorted().toList())
                .isEqualTo(java.err().lines().filter(l -> !l.startsWith("magus: ")).sorted().toList());
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void manyFramesArriveWholeAndInOrder(Client client) throws Exception {
        assumeBuilt(client);
        Ran r = run(client, "run", "--", "sh", "-c", "i=0; while [ $i -lt 20000 ]; do echo \"line $i of the run\"; i=$((i+1)); done");
        assertThat(r.status()).isZero();
        StringBuilder expected = new StringBuilder();
        for (int i = 0; i < 20000; i++) {
            expected.append("line ").append(i).append(" of the run\n");
        }
        assertThat(r.text()).isEqualTo(expected.toString());
    }

    /** Words that are not UTF-8 (a shell gives them; a Java ProcessBuilder cannot) reach the child as the same bytes. */
    @ParameterizedTest
    @EnumSource(Client.class)
    void bytesThatAreNotUtf8ReachTheChildAsThemselves(Client client) throws Exception {
        assumeBuilt(client);
        List<String> c = new ArrayList<>(List.of("sh", "-c",
                "r=$(printf 'a\\377b\\001\\303\\360\\220\\202\\200'); exec \"$@\" run --env \"V=$r\" -- sh -c 'printf \"%s|%s\" \"$1\" \"$V\"' x \"$r\"",
                "sh"));
        c.addAll(command(client));
        Ran r = run(c, f.env, new byte[0]);
        byte[] raw = {'a', (byte) 0xff, 'b', 1, (byte) 0xc3, (byte) 0xf0, (byte) 0x90, (byte) 0x82, (byte) 0x80};
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        expected.writeBytes(raw);
        expected.write('|');
        expected.writeBytes(raw);
        assertThat(r.status()).as("stderr: %s", r.err()).isZero();
        assertThat(r.out()).isEqualTo(expected.toByteArray());
        assertThat(forwardedStarted()).isEqualTo(1.0);
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void stdinReachesTheChildAndItsEndClosesIt(Client client) throws Exception {
        assumeBuilt(client);
        byte[] in = "one\ntwo\000three".getBytes(StandardCharsets.UTF_8);
        Ran r = run(client, f.env, in, "run", "--stdin", "--", "sh", "-c", "cat; echo end");
        assertThat(r.status()).isZero();
        assertThat(r.text()).isEqualTo("one\ntwo\000threeend\n");
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void aSignalToTheClientReachesTheChildsGroup(Client client) throws Exception {
        assumeBuilt(client);
        Process p = spawn(client, f.env, "run", "--", "sh", "-c",
                "trap 'echo trapped; exit 7' TERM; sleep 0.2; echo ready; while :; do sleep 0.1; done");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Thread t = drain(p.getErrorStream(), err);
        InputStream out = p.getInputStream();
        StringBuilder seen = new StringBuilder();
        while (!seen.toString().contains("ready\n")) {
            int b = out.read();
            assertThat(b).as("the run's output before it ended: %s %s", seen, err).isNotNegative();
            seen.append((char) b);
        }
        p.toHandle().destroy(); // SIGTERM to the client (Process.destroy would also close its pipes)
        String rest = new String(out.readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        t.join();
        assertThat(rest).isEqualTo("trapped\n");
        assertThat(p.exitValue()).isEqualTo(7);
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void aClientKilledOutrightTakesItsRunsGroupWithIt(Client client) throws Exception {
        assumeBuilt(client);
        long runsBefore = runsEnded();
        Process p = spawn(client, f.env, "run", "--", "sh", "-c", "sleep 0.2; echo $$; exec sleep 60");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Thread t = drain(p.getErrorStream(), err);
        StringBuilder pid = new StringBuilder();
        InputStream out = p.getInputStream();
        for (int b; (b = out.read()) != '\n'; ) {
            assertThat(b).as("the child's pid before the run ended: %s", err).isNotNegative();
            pid.append((char) b);
        }
        long child = Long.parseLong(pid.toString());
        assertThat(running(child)).isTrue();
        new ProcessBuilder("kill", "-KILL", Long.toString(p.pid())).start().waitFor(); // no handler runs
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        t.join();
        // A deadline, not a timing assertion. The server in this JVM reaps the killed child; until
        // then it is a zombie, which ProcessHandle still calls alive, so /proc's state is read.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (running(child) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(running(child)).as("the disconnect killed the run's group (child %d)", child).isFalse();
        // The run goes on to its end (its cgroup, strays, audits) after its client is gone, writing
        // in the fake home's state dir: the test's temp dir is removed only once it has ended.
        while (runsEnded() == runsBefore && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(runsEnded()).as("the run ended after its client was killed").isGreaterThan(runsBefore);
    }

    /** How many runs of this fixture's server have ended (magus.runs, recorded at each run's end). */
    private long runsEnded() {
        return f.registry.find("magus.runs").timers().stream().mapToLong(io.micrometer.core.instrument.Timer::count).sum();
    }

    private static boolean running(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            char state = stat.charAt(stat.lastIndexOf(')') + 2);
            return state != 'Z' && state != 'X';
        } catch (IOException e) {
            return false;
        }
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void aSignalThatEndsTheChildIs128PlusIt(Client client) throws Exception {
        assumeBuilt(client);
        assertThat(run(client, "run", "--", "sh", "-c", "kill -TERM $$").status()).isEqualTo(128 + 15);
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void aDeclinedRunIsSaidOnceAndGoesToTheFullCommandLineAsLocal(Client client) throws Exception {
        assumeBuilt(client);
        f.yaml("sandbox:\n  mode: best-effort\n");
        Map<String, String> strict = new HashMap<>(f.env);
        strict.put("MAGUS_SANDBOX", "required");
        Ran r = run(client, strict, new byte[0], "run", "--", "sh", "-c", "exit 6");
        assertThat(r.status()).isEqualTo(42);
        assertThat(r.text()).isEqualTo("full command line: run|--local|--|sh|-c|exit 6\n");
        assertThat(r.magusLines()).containsExactly("magus: the magus server runs " + f.workspace
                + " under sandbox mode best-effort, weaker than this run's required; running it here instead");
        assertThat(forwardedStarted()).isZero();
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void aWrongTokenIsMgs2011AndTheRunGoesToTheFullCommandLine(Client client) throws Exception {
        assumeBuilt(client);
        Map<String, String> env = new HashMap<>(f.env);
        env.put("MAGUS_PROC_TOKEN", "0".repeat(64));
        Ran r = run(client, env, new byte[0], "run", "--", "true");
        assertThat(r.status()).isEqualTo(42);
        assertThat(r.text()).isEqualTo("full command line: run|--local|--|true\n");
        assertThat(r.magusLines()).singleElement().satisfies(l -> assertThat(l)
                .startsWith("magus: the magus server refused this client: MGS2011: the request carries a wrong token")
                .endsWith("; running here instead"));
        assertThat(f.registry.get("magus.server.refusals").tag("code", "MGS2011").counter().count()).isEqualTo(1.0);
        assertThat(forwardedStarted()).isZero();
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void whatIsNotAPlainRunOrFindsNoServerGoesToTheFullCommandLineUntouched(Client client) throws Exception {
        assumeBuilt(client);
        Ran events = run(client, "run", "--events", "x.ndjson", "--", "true");
        assertThat(events.text()).isEqualTo("full command line: run|--events|x.ndjson|--|true\n");
        assertThat(events.status()).isEqualTo(42);
        Ran other = run(client, "policy");
        assertThat(other.text()).isEqualTo("full command line: policy\n");
        f.close();
        Ran noServer = run(client, "run", "--", "true");
        assertThat(noServer.text()).isEqualTo("full command line: run|--|true\n");
        assertThat(noServer.err()).isEmpty();
    }
}
