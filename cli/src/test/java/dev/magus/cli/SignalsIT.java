package dev.magus.cli;

import static dev.magus.orchestrator.Procs.alive;
import static dev.magus.orchestrator.Procs.liveInGroup;
import static dev.magus.orchestrator.Procs.within;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.orchestrator.Procs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Signals sent to a real {@code bin/magus} process, at random moments of its start-up and
 * while its confined child runs, and a {@code kill -9} of magus itself ("signals are
 * never lost"). Every wait is a bounded deadline; the one timing assertion is the second the
 * issue allows a killed magus's group to outlive it.
 */
class SignalsIT {
    static final int TRIALS = 10;
    static Path magus;

    @TempDir
    Path root;
    Path ws;
    Path tmp;
    Map<String, String> env;
    final List<Process> started = new ArrayList<>();
    /** What each bin/magus wrote, stdout and stderr together, for failure messages. */
    final Map<Process, Path> logs = new java.util.HashMap<>();
    final List<Long> groups = new ArrayList<>();

    @BeforeAll
    static void findMagus() {
        magus = BinMagus.find("bin/magus signal tests");
    }

    @BeforeEach
    void setUp() throws IOException {
        Path home = Files.createDirectories(root.resolve("home")).toRealPath();
        ws = Files.createDirectories(root.resolve("ws")).toRealPath();
        tmp = Files.createDirectories(root.resolve("tmp")).toRealPath();
        Files.writeString(ws.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        env = BinMagus.env(home, tmp);
    }

    /** Whatever a failed test left running is killed. */
    @AfterEach
    void killLeftovers() {
        started.forEach(Process::destroyForcibly);
        groups.stream().flatMap(g -> liveInGroup(g).stream())
                .forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
    }

    private Process start(String... args) throws IOException {
        ProcessBuilder pb = BinMagus.command(magus, ws, env, args);
        Path log = Files.createTempFile(root, "magus-", ".log");
        pb.redirectOutput(log.toFile()).redirectErrorStream(true);
        Process p = pb.start();
        started.add(p);
        logs.put(p, log);
        return p;
    }

    private static int await(Process p) throws InterruptedException {
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("bin/magus ended").isTrue();
        return p.exitValue();
    }

    /** SIGINT, SIGTERM, SIGHUP: the ones this JVM does not ignore (its children would inherit that, and magus honours it). */
    private static List<Signal> deliverable() {
        List<Signal> all = new ArrayList<>();
        for (Signal s : Signal.values()) {
            if (ignoredHere(s.number)) {
                System.err.println("SignalsIT: SIG" + s + " is ignored by this JVM (and so by the bin/magus it starts, which"
                        + " honours an inherited SIG_IGN); not sent");
            } else {
                all.add(s);
            }
        }
        Assumptions.assumeFalse(all.isEmpty(), "this JVM ignores SIGINT, SIGTERM and SIGHUP alike");
        return all;
    }

    enum Signal {
        INT(2), TERM(15), HUP(1);

        final int number;

        Signal(int number) {
            this.number = number;
        }
    }

    private static void send(long pid, Signal s) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-s", s.name(), Long.toString(pid)).start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aSignalAtAnyMomentOfStartUpEndsTheRunWith128PlusNAndNoChildOutlivesMagus() throws Exception {
        List<Signal> signals = deliverable();
        // How long start-up takes here (1-2 s on an idle 2-core machine, far more on a busy one):
        // the delays then cover it, and a fifth beyond, however fast or slow this host is.
        long t0 = System.nanoTime();
        Process first = start("run", "--", "sh", "-c", "echo $$ > calibrate.pid; sleep 3; touch calibrate.marker");
        groups.add(awaitPidFile("calibrate.pid"));
        long spawnMillis = (System.nanoTime() - t0) / 1_000_000;
        send(first.pid(), signals.get(0));
        assertThat(await(first)).as(() -> read(logOf(first))).isEqualTo(128 + signals.get(0).number);
        long maxDelay = spawnMillis * 6 / 5;
        // Long enough that even a trial starting up far faster than the calibration cannot finish
        // before its signal; a child that outlived magus touches its marker after it.
        long sleep = 3 + (maxDelay + 999) / 1000;

        long seed = System.nanoTime();
        Random random = new Random(seed);
        List<String> trials = new ArrayList<>();
        int reachedAChild = 0;
        for (int i = 0; i < TRIALS; i++) {
            // One delay in each tenth of the range, at a random point of it: spread, yet random.
            long delay = (long) ((i + random.nextDouble()) * maxDelay / TRIALS);
            Signal signal = signals.get(i % signals.size());
            String name = "trial" + i;
            Process p = start("run", "--", "sh", "-c", "echo $$ > " + name + ".pid; sleep " + sleep + "; touch " + name + ".marker");
            Thread.sleep(delay);
            send(p.pid(), signal);
            int status = await(p);
            String trial = name + ": SIG" + signal + " after " + delay + " ms -> " + status;
            trials.add(trial);
            String context = String.format("%s (seed %d; so far %s)%n%s", trial, seed, trials,
                    Files.readString(logOf(p)));
            // 128+N whichever way: magus's own exit, or the JVM killed by N before its handlers exist.
            assertThat(status).as(context).isEqualTo(128 + signal.number);
            Path pidFile = ws.resolve(name + ".pid");
            String pid = Files.exists(pidFile) ? Files.readString(pidFile).strip() : "";
            if (Files.exists(pidFile)) {
                reachedAChild++;
            }
            if (!pid.isEmpty()) {
                long child = Long.parseLong(pid);
                groups.add(child);
                // magus SIGKILLed the group and reaped its leader before it exited; the kernel
                // may take a moment to finish the other members off.
                assertThat(within(Duration.ofSeconds(1), () -> liveInGroup(child).isEmpty()))
                        .as("the child's group %d outlived magus: %s", child, context).isTrue();
            }
        }
        // A child that survived magus would touch its marker by now.
        Thread.sleep(sleep * 1000 + 500);
        try (Stream<Path> files = Files.list(ws)) {
            assertThat(files.map(f -> f.getFileName().toString()).filter(f -> f.endsWith(".marker")))
                    .as("markers (seed %d, %s)", seed, trials).isEmpty();
        }
        System.err.println("SignalsIT: the child started " + spawnMillis + " ms after bin/magus; " + TRIALS
                + " signals during start-up (seed " + seed + "), " + reachedAChild
                + " after the spawn, the rest before it: " + trials);
    }

    @Test
    void aSignalAfterTheSpawnReachesTheChildAndMagusExitsWithTheChildsStatus() throws Exception {
        Signal signal = deliverable().get(0);
        Process p = start("run", "--", "sh", "-c", "trap 'exit 7' " + signal + "; echo $$ > child.pid; while :; do sleep 1; done");
        groups.add(awaitPidFile("child.pid"));
        send(p.pid(), signal);
        assertThat(await(p)).as(() -> read(logOf(p))).isEqualTo(7);
    }

    @Test
    void killNineOfMagusTakesTheRunsGroupWithinASecondAndItsTempDir() throws Exception {
        Process p = start("run", "--", "sh", "-c", "echo $$ > child.pid; sleep 300 & sleep 300");
        long child = awaitGroupOfTwo();
        List<Long> members = liveInGroup(child);
        Path privateTemp = onlyPrivateTemp();

        new ProcessBuilder("kill", "-KILL", Long.toString(p.pid())).start().waitFor();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();

        assertThat(within(Duration.ofSeconds(1), () -> members.stream().noneMatch(Procs::alive)))
                .as("every process of the run's group %d (%s) is gone within a second of magus", child, members).isTrue();
        assertThat(within(Duration.ofSeconds(5), () -> !Files.exists(privateTemp))).as("%s removed", privateTemp).isTrue();
    }

    @Test
    void thePrivateTempDirOfAMagusKilledWithItsWatchdogIsRemovedByTheNextMagus() throws Exception {
        Process p = start("run", "--", "sh", "-c", "echo $$ > child.pid; sleep 300 & sleep 300");
        long child = awaitGroupOfTwo();
        Path privateTemp = onlyPrivateTemp();
        long watchdog = p.toHandle().children().filter(c -> cmdline(c.pid()).startsWith("magus-watchdog "))
                .map(ProcessHandle::pid).findFirst().orElseThrow(() -> new AssertionError("no magus-watchdog child of magus"));

        // Both at once, as a kill of their cgroup would: nothing is left to clean up after magus.
        new ProcessBuilder("kill", "-KILL", Long.toString(watchdog), Long.toString(p.pid())).start().waitFor();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(within(Duration.ofSeconds(5), () -> !alive(watchdog))).isTrue();
        // The residual README.md names: the group lives on. This test kills it itself.
        liveInGroup(child).forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
        assertThat(privateTemp).as("left behind by the killed magus").isDirectory();

        Process next = start("run", "--", "true");
        assertThat(await(next)).as(() -> read(logOf(next))).isZero();
        assertThat(privateTemp).as("removed by the next magus").doesNotExist();
        try (Stream<Path> left = Files.list(tmp)) {
            assertThat(left.filter(e -> e.getFileName().toString().startsWith("magus-run-")))
                    .as("no private temp dir of either run is left in TMPDIR").isEmpty();
        }
    }

    /** Waits until the child has written its pid (the whole line) to {@code name}; returns it. */
    private long awaitPidFile(String name) {
        Path pidFile = ws.resolve(name);
        assertThat(within(Duration.ofSeconds(60), () -> read(pidFile).endsWith("\n"))).as("the child started").isTrue();
        return Long.parseLong(read(pidFile).strip());
    }

    /** Waits for the child's pid file and both sleeps of its group; returns the group id. */
    private long awaitGroupOfTwo() {
        long child = awaitPidFile("child.pid");
        groups.add(child);
        assertThat(within(Duration.ofSeconds(20), () -> liveInGroup(child).size() >= 2)).as("group %d has its job", child).isTrue();
        return child;
    }

    private Path onlyPrivateTemp() throws IOException {
        try (Stream<Path> entries = Files.list(tmp)) {
            List<Path> temps = entries.filter(e -> e.getFileName().toString().startsWith("magus-run-")).toList();
            assertThat(temps).as("the run's private temp dir in %s", tmp).hasSize(1);
            return temps.get(0);
        }
    }

    private Path logOf(Process p) {
        return logs.get(p);
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            return "";
        }
    }

    private static String cmdline(long pid) {
        return read(Path.of("/proc/" + pid + "/cmdline")).replace('\0', ' ');
    }

    private static boolean ignoredHere(int signal) {
        String status = read(Path.of("/proc/self/status"));
        return status.lines().filter(l -> l.startsWith("SigIgn:")).findFirst()
                .map(l -> (Long.parseUnsignedLong(l.substring(7).strip(), 16) & (1L << (signal - 1))) != 0)
                .orElse(false);
    }
}
