package dev.magus.landlock.launch;

import static dev.magus.landlock.launch.Children.assumeLandlock;
import static dev.magus.landlock.launch.Children.env;
import static dev.magus.landlock.launch.Children.rule;
import static dev.magus.landlock.launch.Children.systemPlus;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.policy.fs.AccessMode;
import dev.magus.events.Mode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;
import reactor.test.StepVerifier;

/** Cancelling a run kills the child's whole process group, and only while the group id is still the child's. */
class KillGroupTest {
    @TempDir
    Path ws;
    Confinement c;

    @BeforeEach
    void setUp() {
        assumeLandlock();
        c = Confinement.prepare(Mode.REQUIRED, systemPlus(rule(ws, AccessMode.RWX)), LandlockProbe.kernel());
    }

    @AfterEach
    void tearDown() {
        if (c != null) {
            c.close();
        }
    }

    private Child startGroup() {
        String script = "sleep 100 & echo $!; sleep 100 & echo $!; wait";
        Spawn s = Launcher.get().spawn(new SpawnRequest(Children.SH, List.of("sh", "-c", script), env(ws), ws, Stdio.NULL_INPUT), c);
        return ((Spawn.Started) s).child();
    }

    private static List<Integer> pids(Child child) throws IOException {
        BufferedReader r = new BufferedReader(new InputStreamReader(child.stdout(), StandardCharsets.UTF_8));
        return List.of(Integer.parseInt(r.readLine().strip()), Integer.parseInt(r.readLine().strip()));
    }

    @Test
    void killGroupEndsTheLeaderAndItsBackgroundJobs() throws Exception {
        Child child = startGroup();
        List<Integer> sleepers = pids(child);
        for (int pid : sleepers) {
            assertThat(alive(pid)).as("sleeper %d before the kill", pid).isTrue();
        }
        assertThat(child.killGroup(Child.SIGKILL)).isTrue();
        Exit exit = child.waitFor();
        assertThat(exit.signal()).isEqualTo(Child.SIGKILL);
        assertThat(exit.status()).isEqualTo(137);
        for (int pid : sleepers) {
            assertThat(awaitDeath(pid)).as("sleeper %d after the kill", pid).isTrue();
        }
        // Reaped: the group id may belong to someone else now, so nothing is sent.
        assertThat(child.killGroup(Child.SIGKILL)).isFalse();
        child.close();
    }

    @Test
    void waitForAndKillGroupEndsWhatTheLeaderLeftRunning() throws Exception {
        Child child = start("sleep 100 & echo $!; exit 5");
        int sleeper = firstPid(child);
        assertThat(child.waitForAndKillGroup()).isEqualTo(new Exit(5, 0));
        assertThat(awaitDeath(sleeper)).as("background sleeper %d after the leader exited", sleeper).isTrue();
        // The leader's output pipe is released with the sleeper, so the reader sees end of file.
        assertThat(child.stdout().read()).isEqualTo(-1);
        assertThat(child.killGroup(Child.SIGKILL)).isFalse();
        child.close();
    }

    @Test
    void plainWaitForLeavesTheGroupAlone() throws Exception {
        Child child = start("sleep 100 & echo $!; exit 5");
        int sleeper = firstPid(child);
        try {
            assertThat(child.waitFor()).isEqualTo(new Exit(5, 0));
            assertThat(alive(sleeper)).as("background sleeper %d after a plain waitFor", sleeper).isTrue();
        } finally {
            ProcessHandle.of(sleeper).ifPresent(ProcessHandle::destroyForcibly);
            assertThat(awaitDeath(sleeper)).isTrue();
            child.close();
        }
    }

    private Child start(String script) {
        Spawn s = Launcher.get().spawn(new SpawnRequest(Children.SH, List.of("sh", "-c", script), env(ws), ws, Stdio.NULL_INPUT), c);
        return ((Spawn.Started) s).child();
    }

    private static int firstPid(Child child) throws IOException {
        // Byte by byte: a buffered reader could block waiting for more than the one line.
        StringBuilder sb = new StringBuilder();
        int b;
        while ((b = child.stdout().read()) >= 0 && b != '\n') {
            sb.append((char) b);
        }
        return Integer.parseInt(sb.toString().strip());
    }

    @Test
    void cancellingTheExitMonoKillsTheGroup() throws Exception {
        Child child = startGroup();
        List<Integer> sleepers = pids(child);
        Disposable waiting = child.exit().subscribe();
        waiting.dispose();
        StepVerifier.create(Mono_exit(child)).expectNextMatches(e -> e.signal() == Child.SIGKILL).verifyComplete();
        for (int pid : sleepers) {
            assertThat(awaitDeath(pid)).isTrue();
        }
        child.close();
    }

    @Test
    void anOrdinaryExitAndPoll() {
        Spawn s = Launcher.get().spawn(new SpawnRequest(Children.SH, List.of("sh", "-c", "exit 7"), env(ws), ws, Stdio.NULL_INPUT), c);
        Child child = ((Spawn.Started) s).child();
        StepVerifier.create(child.exit()).expectNext(new Exit(7, 0)).verifyComplete();
        assertThat(child.poll()).contains(new Exit(7, 0));
        assertThat(child.waitFor().status()).isEqualTo(7);
        child.close();
    }

    private static reactor.core.publisher.Mono<Exit> Mono_exit(Child child) {
        return child.exit().timeout(Duration.ofSeconds(30));
    }

    private static boolean alive(int pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            // The state follows the parenthesised command name; Z is a zombie, dead but unreaped by init.
            char state = stat.charAt(stat.lastIndexOf(')') + 2);
            return state != 'Z' && state != 'X';
        } catch (IOException e) {
            return false;
        }
    }

    /** Waits (bounded) for the kernel to finish a SIGKILL; a deadline, not a timing assertion. */
    private static boolean awaitDeath(int pid) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (alive(pid)) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }
}
