package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.supervise.Support;
import dev.magus.server.client.ServerClient;
import dev.magus.server.protocol.Frame;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A forwarded {@code --ask} run asks its client: the server sends an ask frame for each open the
 * policy refuses, and the child waits for the client's decision frame, over a real Unix socket,
 * with a real confined child reading a file its policy refuses.
 */
class ForwardedAskTest {
    @TempDir
    Path root;
    Fixture f;
    Path secret;

    @BeforeEach
    void start() throws Exception {
        Optional<String> gap = Support.approvalGap();
        gap.ifPresent(why -> System.err.println("forwarded --ask test skipped: " + why));
        Assumptions.assumeTrue(gap.isEmpty(), () -> "forwarded --ask test skipped: " + gap.orElse(""));
        f = new Fixture(root);
        f.yaml("sandbox:\n  mode: required\n");
        secret = Files.writeString(Files.createDirectories(f.home.resolve(".aws")).resolve("credentials"), "AKIAFAKEFAKE\n");
    }

    @AfterEach
    void stop() {
        if (f != null) {
            f.close();
        }
    }

    /** What one asking run showed: its asks, in order, and the rest as a run's result. */
    record Asked(List<Frame.Ask> asks, String out, String err, int status) {
        /** The decisions magus's lines name, in order. */
        List<String> decisions() {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("[{ ]decision=([a-z-]+)[,}]").matcher(err);
            List<String> out = new ArrayList<>();
            while (m.find()) {
                out.add(m.group(1));
            }
            return out;
        }
    }

    /** {@code magus run -v --ask --ask-timeout SECONDS -- sh -c script}. */
    private Frame.Command asking(Duration timeout, String script) {
        return f.run(f.env, List.of("-v", "--ask", "--ask-timeout", Long.toString(timeout.toSeconds())), "sh", "-c", script);
    }

    /** Runs {@code submit}, answering each ask with what {@code answer} says (nothing: no answer). */
    private Asked run(ServerClient c, Frame.Command command, Function<Frame.Ask, Optional<Frame.Decision>> answer)
            throws IOException {
        c.send(command);
        List<Frame.Ask> asks = new ArrayList<>();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        while (true) {
            Frame.ToClient frame = c.read();
            if (frame instanceof Frame.Ask a) {
                asks.add(a);
                Optional<Frame.Decision> d = answer.apply(a);
                if (d.isPresent()) {
                    c.send(d.get());
                }
            } else if (frame instanceof Frame.Stdout o) {
                out.write(o.bytes());
            } else if (frame instanceof Frame.Stderr e) {
                err.write(e.bytes());
            } else if (frame instanceof Frame.Exit x) {
                return new Asked(asks, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), x.status());
            }
        }
    }

    /** Waits until {@code n} runs of this server have ended (magus.runs, recorded at each run's end); whether they did. */
    private boolean runsEnded(long n) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            if (f.registry.find("magus.runs").timers().stream().mapToLong(io.micrometer.core.instrument.Timer::count).sum() >= n) {
                return true;
            }
            Thread.sleep(50);
        }
        return false;
    }

    @Test
    void anOpenAllowedOnceIsReadAndTheNextOneIsAskedAgain() throws Exception {
        try (ServerClient c = f.client()) {
            // A decision for an ask nobody made is dropped; the real one is still waited for.
            Asked r = run(c, asking(Duration.ofSeconds(30), "cat '" + secret + "'; echo first=$?; cat '" + secret
                    + "'; echo second=$?"), a -> {
                        try {
                            c.send(new Frame.Decision(a.id() + 1000, "run"));
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                        return Optional.of(new Frame.Decision(a.id(), a.id() == 1 ? "once" : "deny"));
                    });
            assertThat(r.asks()).hasSize(2);
            Frame.Ask first = r.asks().get(0);
            assertThat(first.process()).isEqualTo("cat");
            assertThat(first.path()).isEqualTo(secret.toString());
            assertThat(first.resolved()).isEqualTo(secret.toString());
            assertThat(first.access()).isEqualTo("read");
            assertThat(first.timeoutMillis()).isEqualTo(30_000);
            assertThat(first.pid()).isPositive();
            assertThat(r.asks().get(1).id()).isNotEqualTo(first.id());
            assertThat(r.out()).contains("AKIAFAKEFAKE\nfirst=0\n").contains("second=1").containsOnlyOnce("AKIAFAKEFAKE");
            assertThat(r.decisions()).containsExactly("allow-once", "deny");
        }
    }

    @Test
    void anOpenAllowedForTheRunIsNotAskedAgain() throws Exception {
        try (ServerClient c = f.client()) {
            Asked r = run(c, asking(Duration.ofSeconds(30), "cat '" + secret + "' '" + secret + "'"),
                    a -> Optional.of(new Frame.Decision(a.id(), "run")));
            assertThat(r.asks()).hasSize(1);
            assertThat(r.out()).isEqualTo("AKIAFAKEFAKE\nAKIAFAKEFAKE\n");
            assertThat(r.status()).isZero();
        }
    }

    @Test
    void aDeniedOpenFailsAsTheKernelFailsIt() throws Exception {
        try (ServerClient c = f.client()) {
            Asked r = run(c, asking(Duration.ofSeconds(30), "cat '" + secret + "'"),
                    a -> Optional.of(new Frame.Decision(a.id(), "deny")));
            assertThat(r.asks()).hasSize(1);
            assertThat(r.out()).doesNotContain("AKIA");
            assertThat(r.status()).isEqualTo(1);
            assertThat(r.decisions()).containsExactly("deny");
        }
    }

    @Test
    void noAnswerWithinTheTimeoutDeniesAndALateAnswerIsDropped() throws Exception {
        try (ServerClient c = f.client()) {
            List<Frame.Ask> unanswered = new ArrayList<>();
            Asked r = run(c, asking(Duration.ofSeconds(1), "cat '" + secret + "'; echo cat=$?; sleep 1; echo end"), a -> {
                unanswered.add(a);
                return Optional.empty();
            });
            assertThat(r.asks()).hasSize(1);
            assertThat(r.out()).doesNotContain("AKIA").contains("cat=1").contains("end");
            assertThat(r.decisions()).containsExactly("timeout");
        }
    }

    @Test
    void aLateAnswerIsDroppedWhileTheRunGoesOn() throws Exception {
        try (ServerClient c = f.client()) {
            c.send(asking(Duration.ofSeconds(1), "cat '" + secret + "'; echo cat=$?; sleep 2; echo end"));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            Frame.Ask ask = null;
            while (true) {
                Frame.ToClient frame = c.read();
                if (frame instanceof Frame.Ask a) {
                    ask = a;
                } else if (frame instanceof Frame.Stdout o) {
                    out.write(o.bytes());
                    if (out.toString(StandardCharsets.UTF_8).contains("cat=")) {
                        // The ask timed out: its answer now comes too late, and the connection stays.
                        c.send(new Frame.Decision(ask.id(), "once"));
                    }
                } else if (frame instanceof Frame.Exit x) {
                    assertThat(out.toString(StandardCharsets.UTF_8)).contains("cat=1").contains("end")
                            .doesNotContain("AKIA");
                    assertThat(x.status()).isZero();
                    return;
                }
            }
        }
    }

    @Test
    void aClientThatGoesAwayMidAskDeniesAndTheRunEnds() throws Exception {
        Path pidFile = f.workspace.resolve("pid");
        Path copy = f.workspace.resolve("copy");
        try (ServerClient c = f.client()) {
            c.send(asking(Duration.ofSeconds(60), "echo $$ > '" + pidFile + "'; cat '" + secret + "' > '" + copy
                    + "'; sleep 60"));
            Frame.ToClient frame;
            do {
                frame = c.read();
            } while (!(frame instanceof Frame.Ask));
        }
        long pid = Long.parseLong(Files.readString(pidFile).trim());
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).as("the run's shell ended").isFalse();
        assertThat(runsEnded(1)).as("the run ended").isTrue();
        assertThat(Files.exists(copy) ? Files.readString(copy) : "").doesNotContain("AKIA");
    }

    @Test
    void aDecisionOnARunThatDoesNotAskIsAProtocolError() throws Exception {
        try (ServerClient c = f.client()) {
            c.send(f.run("sh", "-c", "echo ready; sleep 60"));
            untilOutput(c);
            c.send(new Frame.Decision(1, "once"));
            Frame.Refused refused = refusalBeforeClose(c);
            assertThat(refused).isNotNull();
            assertThat(refused.code()).isEqualTo("protocol");
            assertThat(refused.message()).contains("does not ask");
        }
        assertThat(runsEnded(1)).as("the run ended with its connection").isTrue();
    }

    @Test
    void aDecisionOtherThanOnceRunOrDenyIsAMalformedFrame() throws Exception {
        try (ServerClient c = f.client()) {
            c.send(asking(Duration.ofSeconds(30), "echo ready; sleep 60"));
            untilOutput(c);
            byte[] always = "{\"type\":\"decision\",\"id\":1,\"decision\":\"always\"}".getBytes(StandardCharsets.UTF_8);
            c.sendRaw(dev.magus.server.protocol.FrameCodec.bytes(dev.magus.server.protocol.FrameCodec.JSON, always, 0,
                    always.length));
            Frame.Refused refused = refusalBeforeClose(c);
            assertThat(refused).isNotNull();
            assertThat(refused.message()).contains("once, run or deny");
        }
        assertThat(runsEnded(1)).as("the run ended with its connection").isTrue();
    }

    /** Reads until the run's first output: it has started. */
    private static void untilOutput(ServerClient c) throws IOException {
        Frame.ToClient frame;
        do {
            frame = c.read();
        } while (!(frame instanceof Frame.Stdout));
    }

    /** The refusal the server sent before it closed the connection, or null. */
    static Frame.Refused refusalBeforeClose(ServerClient c) throws IOException {
        Frame.Refused refused = null;
        try {
            while (true) {
                if (c.read() instanceof Frame.Refused r) {
                    refused = r;
                }
            }
        } catch (EOFException closed) {
            return refused;
        }
    }
}
