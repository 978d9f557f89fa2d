package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.server.client.ServerClient;
import dev.magus.server.protocol.Frame;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A forwarded run looks exactly like a local one: bytes, exit statuses, signals, stdin. */
class ForwardedRunTest {
    @TempDir
    Path root;
    Fixture f;

    @BeforeEach
    void start() throws Exception {
        f = new Fixture(root);
    }

    @AfterEach
    void stop() {
        f.close();
    }

    @Test
    void outputArrivesByteForByteOnItsOwnStream() throws Exception {
        Fixture.Result r = f.forward(f.run("sh", "-c",
                "printf 'a\\r\\nb\\000c'; printf 'to err\\n' >&2; head -c 300000 /dev/urandom > blob; cat blob; printf 'tail'"));
        byte[] blob = Files.readAllBytes(f.workspace.resolve("blob"));
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        expected.write("a\r\nb\0c".getBytes(StandardCharsets.ISO_8859_1));
        expected.write(blob);
        expected.write("tail".getBytes(StandardCharsets.US_ASCII));
        assertThat(r.stdout()).isEqualTo(expected.toByteArray());
        assertThat(new String(r.stderr(), StandardCharsets.UTF_8)).isEqualTo("to err\n");
        assertThat(r.status()).isZero();
    }

    @Test
    void exitStatusesAreALocalRunsOnes() throws Exception {
        assertThat(f.forward(f.run("sh", "-c", "exit 7")).status()).isEqualTo(7);
        Fixture.Result killed = f.forward(f.run("sh", "-c", "kill -TERM $$"));
        assertThat(killed.status()).isEqualTo(128 + 15);
        assertThat(((Forwarding.Outcome.Exited) killed.outcome()).signal()).isEqualTo(15);
        assertThat(f.forward(f.run("no-such-command-anywhere")).status()).isEqualTo(127);
    }

    @Test
    void aSignalFrameReachesTheChildsGroup() throws Exception {
        try (ServerClient c = f.client()) {
            c.send(f.run("sh", "-c", "echo ready; sleep 60"));
            StringBuilder out = new StringBuilder();
            Frame.ToClient frame;
            while (!out.toString().contains("ready")) {
                frame = c.read();
                if (frame instanceof Frame.Stdout o) {
                    out.append(new String(o.bytes(), StandardCharsets.UTF_8));
                }
            }
            Instant sent = Instant.now();
            c.signal(15);
            do {
                frame = c.read();
            } while (!(frame instanceof Frame.Exit));
            assertThat(((Frame.Exit) frame).status()).isEqualTo(128 + 15);
            assertThat(Duration.between(sent, Instant.now())).isLessThan(Duration.ofSeconds(30));
        }
    }

    @Test
    void stdinFramesReachTheChild() throws Exception {
        byte[] input = new byte[100_000];
        new java.util.Random(7).nextBytes(input);
        Frame.Command cat = new Frame.Command(List.of("run", "--", "cat"), f.workspace.toString(), f.env);
        try (ServerClient c = f.client()) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            Forwarding.Outcome o = Forwarding.forward(c, cat, new ByteArrayInputStream(input), out, new ByteArrayOutputStream());
            assertThat(o).isEqualTo(new Forwarding.Outcome.Exited(0, 0));
            assertThat(out.toByteArray()).isEqualTo(input);
        }
    }

    @Test
    void aClientDisconnectKillsTheRunsGroup() throws Exception {
        long sleeper;
        try (ServerClient c = f.client()) {
            c.send(f.run("sh", "-c", "sleep 300 & echo $!; wait"));
            StringBuilder out = new StringBuilder();
            while (!out.toString().contains("\n")) {
                if (c.read() instanceof Frame.Stdout o) {
                    out.append(new String(o.bytes(), StandardCharsets.UTF_8));
                }
            }
            sleeper = Long.parseLong(out.toString().trim());
            assertThat(ProcessHandle.of(sleeper)).get().matches(ProcessHandle::isAlive);
        }
        // A deadline, not a timing assertion. The server in this JVM is the subreaper of its
        // runs, so the killed sleeper is re-parented here and reaped by the run's end; until
        // then it is a zombie, which ProcessHandle still calls alive.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (running(sleeper) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(running(sleeper)).as("the sleeper %d still runs", sleeper).isFalse();
    }

    @Test
    void eachRunKeepsItsOwnEnvironmentAndOverlay() throws Exception {
        List<CompletableFuture<Fixture.Result>> runs = new ArrayList<>();
        for (String who : List.of("one", "two", "three")) {
            java.util.Map<String, String> env = new java.util.LinkedHashMap<>(f.env);
            env.put("CLIENT", who);
            List<String> set = who.equals("three") ? List.of() : List.of("--env", "FOO=foo-" + who);
            Frame.Command s = f.run(env, set, "sh", "-c", "sleep 0.3; echo \"[$FOO] [$CLIENT] [$HOME]\"");
            runs.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return f.forward(s);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            }));
        }
        assertThat(runs.get(0).get(60, TimeUnit.SECONDS).out()).isEqualTo("[foo-one] [one] [" + f.home + "]\n");
        assertThat(runs.get(1).get(60, TimeUnit.SECONDS).out()).isEqualTo("[foo-two] [two] [" + f.home + "]\n");
        assertThat(runs.get(2).get(60, TimeUnit.SECONDS).out()).isEqualTo("[] [three] [" + f.home + "]\n");
        assertThat(f.host().env()).doesNotContainKeys("FOO", "CLIENT");
        assertThat(System.getenv()).doesNotContainKeys("FOO", "CLIENT");
    }

    @Test
    void theClientsPathAndHomeAreTheRunsNotTheServers() throws Exception {
        Path bin = Files.createDirectories(root.resolve("client-bin"));
        Path tool = bin.resolve("only-the-client-has-it");
        Files.writeString(tool, "#!/bin/sh\necho client tool\n");
        tool.toFile().setExecutable(true);
        java.util.Map<String, String> env = new java.util.LinkedHashMap<>(f.env);
        env.put("PATH", bin + ":" + f.env.get("PATH"));
        Fixture.Result r = f.forward(f.run(env, List.of(), "only-the-client-has-it"));
        assertThat(r.out()).isEqualTo("client tool\n");
        assertThat(f.forward(f.run("only-the-client-has-it")).status()).isEqualTo(127);
    }

    /** Whether {@code pid} exists and is not a zombie. */
    private static boolean running(long pid) {
        try {
            String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + pid + "/stat"));
            char state = stat.charAt(stat.lastIndexOf(')') + 2);
            return state != 'Z' && state != 'X';
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
