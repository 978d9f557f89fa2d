package dev.magus.orchestrator.orphans;

import static dev.magus.orchestrator.Procs.alive;
import static dev.magus.orchestrator.Procs.eventually;
import static dev.magus.orchestrator.Procs.liveInGroup;
import static dev.magus.orchestrator.Procs.stat;
import static dev.magus.orchestrator.Procs.within;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.launch.Child;
import dev.magus.landlock.launch.Confinement;
import dev.magus.landlock.launch.Launcher;
import dev.magus.landlock.launch.Spawn;
import dev.magus.landlock.launch.SpawnRequest;
import dev.magus.landlock.launch.Stdio;
import dev.magus.orchestrator.Procs;
import dev.magus.orchestrator.contain.Containment;
import dev.magus.orchestrator.contain.RunCgroups;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The watchdog loop as magus's death leaves it: closing the pipe is exactly what the kernel does
 * when magus dies, so each test closes it and looks at what the loop killed and removed.
 */
class WatchdogTest {
    @TempDir
    Path root;
    Watchdog watchdog;
    final List<Child> started = new ArrayList<>();

    @BeforeEach
    void setUp() {
        boolean linux = System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux");
        String why = "watchdog test skipped: needs Linux with /proc and /bin/sh (os " + System.getProperty("os.name") + ")";
        if (!linux || !Files.isExecutable(Path.of("/bin/sh")) || !Files.isDirectory(Path.of("/proc/self"))) {
            System.err.println(why);
        }
        Assumptions.assumeTrue(linux && Files.isExecutable(Path.of("/bin/sh")) && Files.isDirectory(Path.of("/proc/self")), why);
        watchdog = new Watchdog();
    }

    @AfterEach
    void tearDown() {
        watchdog.close();
        for (Child c : started) {
            c.killGroup(Child.SIGKILL);
            c.waitFor();
            c.close();
        }
    }

    /** A shell with a background job, in a session and group of its own, as a run's child is. */
    private Child group() {
        Spawn s = Launcher.get().spawn(new SpawnRequest(Path.of("/bin/sh"), List.of("sh", "-c", "sleep 300 & sleep 300"),
                Map.of("PATH", "/usr/bin:/bin"), root, Stdio.NULL_INPUT), Confinement.off());
        assertThat(s).isInstanceOf(Spawn.Started.class);
        Child c = ((Spawn.Started) s).child();
        started.add(c);
        assertThat(eventually(() -> liveInGroup(c.pid()).size() >= 2)).as("group %d has its job", c.pid()).isTrue();
        return c;
    }

    @Test
    void whenMagusIsGoneEveryRegisteredGroupIsKilledAndEveryRegisteredDirRemoved() throws IOException {
        Child one = group();
        Child two = group();
        Path dir = Files.createDirectories(root.resolve("magus-run-x/with space/deeper"));
        Files.writeString(dir.resolve("file"), "x");
        Path temp = root.resolve("magus-run-x");
        List<Long> members = new ArrayList<>(liveInGroup(one.pid()));
        members.addAll(liveInGroup(two.pid()));

        watchdog.guardGroup(one.pid());
        watchdog.guardGroup(two.pid());
        watchdog.guardDir(temp);
        assertThat(watchdog.pid()).as("the loop runs: %s", watchdog.failure()).isPresent();
        watchdog.close();

        // Within the second the issue allows; the loop acts on end-of-file, in milliseconds.
        assertThat(within(Duration.ofSeconds(1), () -> members.stream().noneMatch(Procs::alive)))
                .as("every process of groups %d and %d (%s) is gone", one.pid(), two.pid(), members).isTrue();
        assertThat(within(Duration.ofSeconds(1), () -> !Files.exists(temp))).as("%s removed", temp).isTrue();
        assertThat(one.waitFor().signal()).isEqualTo(Child.SIGKILL);
    }

    @Test
    void whenMagusIsGoneARegisteredCgroupIsEmptiedAndRemoved() throws Exception {
        Containment c = RunCgroups.containment();
        if (!(c instanceof Containment.ByCgroup)) {
            System.err.println("watchdog cgroup test skipped: " + c.describe());
        }
        Assumptions.assumeTrue(c instanceof Containment.ByCgroup, c.describe());
        Path cgroup = ((Containment.ByCgroup) c).parent().resolve("watchdog-test-" + System.nanoTime());
        Files.createDirectory(cgroup);
        Files.writeString(cgroup.resolve("cgroup.type"), "threaded");
        // Moved in before it forks: its setsid job is born in the cgroup, out of its group.
        Spawn s = Launcher.get().spawn(new SpawnRequest(Path.of("/bin/sh"), List.of("sh", "-c",
                "sleep 0.3; setsid sleep 300 & sleep 300"), Map.of("PATH", "/usr/bin:/bin"), root, Stdio.NULL_INPUT),
                Confinement.off());
        Child child = ((Spawn.Started) s).child();
        started.add(child);
        try {
            Files.writeString(cgroup.resolve("cgroup.threads"), Long.toString(child.pid()));
            assertThat(eventually(() -> threads(cgroup).size() >= 3)).as("the cgroup holds the job").isTrue();
            List<String> members = threads(cgroup);

            watchdog.guardCgroup(cgroup);
            assertThat(watchdog.pid()).as("the loop runs: %s", watchdog.failure()).isPresent();
            watchdog.close();

            assertThat(within(Duration.ofSeconds(2), () -> !Files.exists(cgroup))).as("%s emptied and removed", cgroup).isTrue();
            assertThat(members.stream().map(Long::parseLong).noneMatch(Procs::alive)).as("%s gone", members).isTrue();
        } finally {
            if (Files.exists(cgroup)) {
                Files.writeString(cgroup.resolve("cgroup.freeze"), "1");
                threads(cgroup).forEach(t -> ProcessHandle.of(Long.parseLong(t)).ifPresent(ProcessHandle::destroyForcibly));
                within(Duration.ofSeconds(2), () -> threads(cgroup).isEmpty());
                Files.deleteIfExists(cgroup);
            }
        }
    }

    /**
     * A watchdog closed while magus lives (an owner of runs done with them) is no death of magus:
     * a thread of magus's own still in a registered cgroup (a launch thread that moved there to
     * spawn) is neither frozen, which would hang magus, nor killed, which would kill it.
     */
    @Test
    void aClosedWatchdogNeitherFreezesNorKillsMagusItselfInARegisteredCgroup() throws Exception {
        Containment c = RunCgroups.containment();
        if (!(c instanceof Containment.ByCgroup)) {
            System.err.println("watchdog self-cgroup test skipped: " + c.describe());
        }
        Assumptions.assumeTrue(c instanceof Containment.ByCgroup, c.describe());
        Path cgroup = ((Containment.ByCgroup) c).parent().resolve("watchdog-self-" + System.nanoTime());
        Files.createDirectory(cgroup);
        Files.writeString(cgroup.resolve("cgroup.type"), "threaded");
        java.util.concurrent.CountDownLatch moved = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch leave = new java.util.concurrent.CountDownLatch(1);
        Thread inside = new Thread(() -> {
            try {
                String tid = Path.of("/proc/thread-self").toRealPath().getFileName().toString();
                Files.writeString(cgroup.resolve("cgroup.threads"), tid);
                moved.countDown();
                leave.await();
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, "watchdog-test-inside");
        inside.start();
        try {
            assertThat(moved.await(5, java.util.concurrent.TimeUnit.SECONDS)).as("a thread of this JVM in %s", cgroup).isTrue();
            watchdog.guardCgroup(cgroup);
            assertThat(watchdog.pid()).as("the loop runs: %s", watchdog.failure()).isPresent();
            long loop = watchdog.pid().get();
            watchdog.close();
            // Its tries on the cgroup take about a second; then it ends, and this JVM is still here.
            assertThat(within(Duration.ofSeconds(5), () -> !alive(loop))).as("the loop %d ended", loop).isTrue();
            assertThat(inside.isAlive()).isTrue();
            assertThat(Files.readString(cgroup.resolve("cgroup.freeze")).trim()).as("not frozen").isEqualTo("0");
        } finally {
            leave.countDown();
            inside.join(5_000);
            within(Duration.ofSeconds(2), () -> threads(cgroup).isEmpty());
            Files.deleteIfExists(cgroup);
        }
    }

    private static List<String> threads(Path cgroup) {
        try {
            return Files.readAllLines(cgroup.resolve("cgroup.threads"));
        } catch (IOException gone) {
            return List.of();
        }
    }

    @Test
    void whatWasReleasedIsLeftAlone() throws IOException {
        Child released = group();
        Child guarded = group();
        Path keep = Files.createDirectories(root.resolve("keep"));
        Path drop = Files.createDirectories(root.resolve("drop"));
        watchdog.guardGroup(released.pid());
        watchdog.guardGroup(guarded.pid());
        watchdog.guardDir(keep);
        watchdog.guardDir(drop);
        watchdog.releaseGroup(released.pid());
        watchdog.releaseDir(keep);
        long loop = watchdog.pid().orElseThrow();
        watchdog.close();

        assertThat(within(Duration.ofSeconds(5), () -> !alive(loop))).as("the loop %d ended", loop).isTrue();
        assertThat(liveInGroup(guarded.pid())).isEmpty();
        assertThat(drop).doesNotExist();
        assertThat(keep).isDirectory();
        assertThat(liveInGroup(released.pid())).hasSizeGreaterThanOrEqualTo(2);
    }

    @Test
    void theLoopIsOutOfTheTerminalsReachAndIgnoresInterrupts() throws Exception {
        Child c = group();
        watchdog.guardGroup(c.pid());
        long loop = watchdog.pid().orElseThrow();
        String[] stat = stat(loop);
        String[] ours = stat(ProcessHandle.current().pid());
        // pgrp and session (fields 5 and 6) are its own, not ours, so a Ctrl-C at our terminal never reaches it.
        assertThat(stat[2]).isEqualTo(Long.toString(loop));
        assertThat(stat[3]).isEqualTo(Long.toString(loop)).isNotEqualTo(ours[3]);
        // tty_nr (field 7): no controlling terminal.
        assertThat(stat[4]).isEqualTo("0");
        // After the trap is set (it reads its first line only after the trap line): the shell is
        // past its start then, the dynamic loader's descriptor (libc) closed.
        assertThat(within(Duration.ofSeconds(5), () -> ignores(loop, Child.SIGINT))).isTrue();
        // Its descriptors are magus's pipe and /dev/null only.
        try (Stream<Path> fds = Files.list(Path.of("/proc/" + loop + "/fd"))) {
            // A descriptor closed between the listing and its readlink ("gone": the loop's
            // subshell of the moment) was held by no terminal; what is still open is checked.
            assertThat(fds.map(fd -> target(fd)).filter(t -> !t.equals("gone")).toList())
                    .allSatisfy(t -> assertThat(t).matches("pipe:.*|/dev/null"));
        }
        new ProcessBuilder("kill", "-INT", Long.toString(loop)).start().waitFor();
        new ProcessBuilder("kill", "-TERM", Long.toString(loop)).start().waitFor();
        Thread.sleep(100);
        assertThat(alive(loop)).as("the loop survives SIGINT and SIGTERM").isTrue();
        assertThat(liveInGroup(c.pid())).hasSizeGreaterThanOrEqualTo(2);
    }

    @Test
    void aLoopThatWasKilledIsStartedAgainWithEveryLiveRegistration() throws Exception {
        Child c = group();
        Path dir = Files.createDirectories(root.resolve("dir"));
        watchdog.guardGroup(c.pid());
        long first = watchdog.pid().orElseThrow();
        new ProcessBuilder("kill", "-KILL", Long.toString(first)).start().waitFor();
        assertThat(within(Duration.ofSeconds(5), () -> !alive(first))).isTrue();

        // The next registration finds the pipe broken and starts a new loop with both.
        watchdog.guardDir(dir);
        long second = watchdog.pid().orElseThrow();
        assertThat(second).isNotEqualTo(first);
        watchdog.close();
        assertThat(within(Duration.ofSeconds(1), () -> liveInGroup(c.pid()).isEmpty())).isTrue();
        assertThat(within(Duration.ofSeconds(1), () -> !Files.exists(dir))).isTrue();
    }

    @Test
    void aLoopStartedOffTheCallersThreadGetsWhatWasRegisteredMeanwhile() throws Exception {
        Child c = group();
        Path dir = Files.createDirectories(root.resolve("dir"));
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        // An executor that holds the start until both registrations are made.
        watchdog.start(r -> new Thread(() -> {
            try {
                go.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            r.run();
        }).start());
        watchdog.guardDir(dir);
        watchdog.guardGroup(c.pid());
        assertThat(watchdog.pid()).as("still starting").isEmpty();
        go.countDown();
        assertThat(watchdog.ready(Duration.ofSeconds(20))).as("%s", watchdog.failure()).isTrue();
        watchdog.close();
        assertThat(within(Duration.ofSeconds(1), () -> liveInGroup(c.pid()).isEmpty())).isTrue();
        assertThat(within(Duration.ofSeconds(1), () -> !Files.exists(dir))).isTrue();
    }

    private static String target(Path fd) {
        try {
            return Files.readSymbolicLink(fd).toString();
        } catch (IOException e) {
            return "gone";
        }
    }

    private static boolean ignores(long pid, int signal) {
        try {
            String line = Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream()
                    .filter(l -> l.startsWith("SigIgn:")).findFirst().orElse("SigIgn: 0");
            long mask = Long.parseUnsignedLong(line.substring(line.indexOf(':') + 1).strip(), 16);
            return (mask & (1L << (signal - 1))) != 0;
        } catch (IOException e) {
            return false;
        }
    }
}
