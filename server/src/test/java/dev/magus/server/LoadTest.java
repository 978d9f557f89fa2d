package dev.magus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.server.protocol.Frame;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The load test in a CI-sized form: {@value #CI_RUNS} concurrent forwarded runs (the
 * issue's 200 with {@code -Dmagus.load.runs=200}), each printing {@value #LINES} lines and
 * hitting a denial, under a sandbox, lose no byte, no line event and no diagnostic, and leave
 * no descriptor or thread behind once they end. Threads of magus's I/O pool and of Reactor's
 * boundedElastic idle out after a minute, so the thread check waits for that.
 */
class LoadTest {
    static final int CI_RUNS = 50;
    static final int RUNS = Integer.getInteger("magus.load.runs", CI_RUNS);
    static final int LINES = 1000;

    @TempDir
    Path root;

    @Test
    void concurrentRunsLoseNothingAndLeakNothing() throws Exception {
        try (Fixture f = new Fixture(root)) {
            f.yaml("sandbox:\n  mode: required\n");
            Files.createDirectories(f.home.resolve(".ssh"));
            Files.writeString(f.home.resolve(".ssh/id_rsa"), "secret");
            f.forward(f.run("true")); // warm: the launcher, the loops, the pools
            int fdsBefore = fds();
            int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
            String expected = IntStream.rangeClosed(1, LINES).mapToObj(Integer::toString).collect(Collectors.joining("\n", "", "\n"));
            ExecutorService clients = Executors.newFixedThreadPool(RUNS);
            try {
                List<CompletableFuture<Fixture.Result>> runs = new ArrayList<>();
                for (int i = 0; i < RUNS; i++) {
                    // The denial comes last: its line on stderr is the one the inference reads.
                    Frame.Command s = f.run("sh", "-c", "seq 1 " + LINES + "; cat \"$HOME/.ssh/id_rsa\"; exit 0");
                    runs.add(CompletableFuture.supplyAsync(() -> {
                        try {
                            return f.forward(s);
                        } catch (IOException e) {
                            throw new RuntimeException(e);
                        }
                    }, clients));
                }
                for (CompletableFuture<Fixture.Result> run : runs) {
                    Fixture.Result r = run.get(300, TimeUnit.SECONDS);
                    assertThat(r.status()).isZero();
                    assertThat(new String(r.stdout(), StandardCharsets.US_ASCII)).isEqualTo(expected);
                    assertThat(new String(r.stderr(), StandardCharsets.UTF_8)).contains(".ssh/id_rsa").contains("ermission denied");
                    assertThat(r.codes()).as("the denial's diagnostic").contains("MGS2001");
                }
            } finally {
                clients.shutdownNow();
                clients.awaitTermination(10, TimeUnit.SECONDS);
            }
            assertThat(f.registry.get("magus.server.forwarded").tag("outcome", "started").counter().count()).isEqualTo(RUNS + 1);
            Instant deadline = Instant.now().plus(Duration.ofSeconds(120));
            int fds = fds();
            int threads = ManagementFactory.getThreadMXBean().getThreadCount();
            while ((fds > fdsBefore || threads > threadsBefore + 2) && Instant.now().isBefore(deadline)) {
                Thread.sleep(1000);
                fds = fds();
                threads = ManagementFactory.getThreadMXBean().getThreadCount();
            }
            assertThat(fds).as("descriptors after the runs (before: %d)", fdsBefore).isLessThanOrEqualTo(fdsBefore);
            assertThat(threads).as("threads after the runs (before: %d)", threadsBefore).isLessThanOrEqualTo(threadsBefore + 2);
        }
    }

    private static int fds() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return (int) s.count();
        }
    }
}
