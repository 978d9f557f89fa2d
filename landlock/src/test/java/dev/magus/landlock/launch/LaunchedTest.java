package dev.magus.landlock.launch;

import static dev.magus.landlock.launch.Children.SH;
import static dev.magus.landlock.launch.Children.env;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's register of its own children: a reap and the pid's leaving the register are one
 * step for every check, so a pid the kernel hands on right after the reap is never vouched for
 * as the launcher's (a confined process's {@code CLONE_PARENT} child
 * could take it and hide from the stray pass).
 */
class LaunchedTest {
    /** A pid no real child of this test has: the register holds numbers, the kernel is not asked. */
    private static final int PID = 4_000_001;

    @TempDir
    Path home;

    @Test
    void aCheckDuringTheReapWaitsForTheUnregisterAndThenSaysNotOwned() throws Exception {
        Launched.spawning();
        Launched.spawned(PID);
        assertThat(Launched.owns(PID)).isTrue();
        AtomicReference<Boolean> seen = new AtomicReference<>();
        AtomicBoolean blockedDuringReap = new AtomicBoolean();
        Thread checker = new Thread(() -> seen.set(Launched.owns(PID)), "test-owns-check");
        int r = Launched.reap(PID, () -> {
            // The pid is free from here on: a check now is one that could see a new process with it.
            checker.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() < deadline) {
                if (checker.getState() == Thread.State.BLOCKED) {
                    blockedDuringReap.set(true);
                    break;
                }
                Thread.onSpinWait();
            }
            return PID;
        });
        checker.join(10_000);
        assertThat(r).isEqualTo(PID);
        assertThat(blockedDuringReap).as("the check waited for the reap's whole step").isTrue();
        assertThat(seen.get()).as("owns() after the reap").isFalse();
        assertThat(Launched.mayTouch(PID)).isTrue();
    }

    @Test
    void aWaitpidThatReapedNothingKeepsThePidRegistered() {
        Launched.spawning();
        Launched.spawned(PID + 1);
        try {
            assertThat(Launched.reap(PID + 1, () -> 0)).isZero();
            assertThat(Launched.owns(PID + 1)).isTrue();
            assertThat(Launched.mayTouch(PID + 1)).isFalse();
            assertThat(Launched.reap(PID + 1, () -> -1)).isEqualTo(-1);
            assertThat(Launched.owns(PID + 1)).as("a failed waitpid reaps nothing").isTrue();
        } finally {
            Launched.reap(PID + 1, () -> PID + 1);
        }
        assertThat(Launched.owns(PID + 1)).isFalse();
    }

    @Test
    void anActionOnAStrangerRunsOnlyWhileTheLauncherCannotOwnThePid() {
        AtomicBoolean ran = new AtomicBoolean();
        Launched.spawning();
        Launched.spawned(PID + 2);
        try {
            assertThat(Launched.whileStranger(PID + 2, () -> ran.getAndSet(true) || true)).isFalse();
            assertThat(ran).as("never on a registered child").isFalse();
            Launched.spawning();
            try {
                assertThat(Launched.whileStranger(PID + 3, () -> ran.getAndSet(true) || true)).isFalse();
                assertThat(ran).as("never while a spawn could be about to register it").isFalse();
            } finally {
                Launched.spawned(0);
            }
            assertThat(Launched.whileStranger(PID + 3, () -> !ran.getAndSet(true))).isTrue();
            assertThat(ran).isTrue();
            assertThat(Launched.whileStranger(PID + 3, () -> false)).as("the action's own answer").isFalse();
        } finally {
            Launched.reap(PID + 2, () -> PID + 2);
        }
    }

    @Test
    void aRealChildIsOwnedUntilItsWaitForReapsIt() throws Exception {
        SpawnRequest request = new SpawnRequest(SH, List.of("sh", "-c", "read x; exit 3"), env(home), home, Stdio.PIPES);
        try (Confinement off = Confinement.off()) {
            Spawn s = Launcher.get().spawn(request, off);
            assertThat(s).isInstanceOf(Spawn.Started.class);
            try (Child child = ((Spawn.Started) s).child()) {
                assertThat(Launched.owns(child.pid())).as("registered while it runs").isTrue();
                child.stdin().close();
                assertThat(child.waitFor().status()).isEqualTo(3);
                assertThat(Launched.owns(child.pid())).as("unregistered once reaped").isFalse();
            }
        }
    }

    /**
     * The threads that called posix_spawn are noted, so that a check reads their children (a
     * run leader's CLONE_PARENT child is theirs); one seen gone is forgotten, unless its id was
     * noted again since by a new thread that took it.
     */
    @Test
    void aSpawnersThreadIsNotedAndForgottenOnlyForTheRegistrationSeenGone() throws Exception {
        int tid = PID + 9;
        Launched.spawnedOn(tid);
        long first = registration(tid);
        Launched.spawnedOn(tid);
        long second = registration(tid);
        assertThat(second).isGreaterThan(first);
        Launched.spawnerGone(tid, first);
        assertThat(registration(tid)).as("noted again since: kept").isEqualTo(second);
        Launched.spawnerGone(tid, second);
        assertThat(registration(tid)).as("forgotten").isEqualTo(-1);

        // A real spawn in mode off runs on this thread: this thread is noted.
        SpawnRequest request = new SpawnRequest(SH, List.of("sh", "-c", "exit 0"), env(home), home, Stdio.PIPES);
        try (Confinement off = Confinement.off()) {
            Spawn s = Launcher.get().spawn(request, off);
            assertThat(s).isInstanceOf(Spawn.Started.class);
            try (Child child = ((Spawn.Started) s).child()) {
                int self = dev.magus.landlock.sys.Natives.syscalls().gettid();
                assertThat(registration(self)).as("the calling thread %d, noted", self).isPositive();
                assertThat(child.waitFor().status()).isZero();
            }
        }
    }

    /** The registration of spawner {@code tid}, or -1 when it is not noted. */
    private static long registration(int tid) {
        long[] s = Launched.spawners();
        assertThat(s).as("every spawn's thread known").isNotNull();
        for (int i = 0; i < s.length; i += 2) {
            if (s[i] == tid) {
                return s[i + 1];
            }
        }
        return -1;
    }
}
