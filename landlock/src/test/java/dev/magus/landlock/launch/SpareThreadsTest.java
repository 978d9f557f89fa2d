package dev.magus.landlock.launch;

import static dev.magus.landlock.launch.Children.assumeLandlock;
import static dev.magus.landlock.launch.Children.env;
import static dev.magus.landlock.launch.Children.rule;
import static dev.magus.landlock.launch.Children.systemPlus;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.jna.Memory;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.sys.LibC;
import dev.magus.landlock.sys.Natives;
import dev.magus.landlock.sys.Syscalls;
import dev.magus.policy.fs.AccessMode;
import dev.magus.events.Mode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The parked launch threads: unconfined while they wait, used once, gone after their spawn,
 * and a burst that finds the pool empty still starts every child confined.
 */
class SpareThreadsTest {
    private static final Syscalls SYS = Natives.syscalls();

    private static final String SECRET = "aws_secret_access_key = AKIAFAKEFAKEFAKE";

    @TempDir
    Path root;
    Path ws;
    Path secret;
    Map<String, String> env;
    Confinement confined;

    @BeforeEach
    void setUp() throws IOException {
        assumeLandlock();
        ws = Files.createDirectories(root.resolve("ws"));
        Files.writeString(ws.resolve("data"), "mine\n");
        secret = Files.writeString(root.resolve("credentials"), SECRET + "\n");
        env = env(root);
        confined = Confinement.prepare(Mode.REQUIRED, systemPlus(rule(ws, AccessMode.RWX)), LandlockProbe.kernel());
    }

    @AfterEach
    void tearDown() {
        if (confined != null) {
            confined.close();
        }
    }

    /** Reads the workspace, then tries the secret outside it: prints "mine" and "denied" when confined. */
    private SpawnRequest probe() {
        String script = "cat data; if cat \"$SECRET\" 2>/dev/null; then echo LEAK; else echo denied; fi";
        Map<String, String> e = new java.util.HashMap<>(env);
        e.put("SECRET", secret.toString());
        return new SpawnRequest(Children.SH, List.of("sh", "-c", script), e, ws, Stdio.NULL_INPUT);
    }

    private static Children.Result collect(Spawn s) {
        assertThat(s).isInstanceOf(Spawn.Started.class);
        return Children.collect(((Spawn.Started) s).child());
    }

    @Test
    void parkedSparesAreUnconfinedAndAUsedOneIsGoneAfterItsSpawn() throws Exception {
        // Confined spawns first, from this thread, so that confined launch threads have existed.
        for (int i = 0; i < 5; i++) {
            assertThat(collect(Launcher.get().spawn(probe(), confined)).assertOk().out()).isEqualTo("mine\ndenied\n");
        }
        SpareThreads pool = new SpareThreads(1, false);
        try {
            Launcher launcher = new Launcher(true, pool);
            pool.refill();
            List<SpareThread> parked = pool.parked();
            assertThat(parked).hasSize(1);
            SpareThread spare = parked.get(0);
            awaitOrFail(() -> spare.tid != 0, "the spare to record its thread id");
            ParkedSpares.assertParkedSpare(spare.tid);
            assertThat(spare.thread.isAlive()).isTrue();

            Children.Result r = collect(launcher.spawn(probe(), confined));

            assertThat(r.assertOk().out()).as("the child started by the spare is confined").isEqualTo("mine\ndenied\n");
            assertThat(pool.handedOff()).isEqualTo(1);
            assertThat(pool.parked()).doesNotContain(spare);
            // spawn() returns once posix_spawn has; the used thread then ends by itself.
            awaitOrFail(() -> !spare.thread.isAlive(), "the used launch thread to end");
            assertThat(spare.thread.getName()).startsWith("magus-sandbox-launch-");
            Path task = Path.of("/proc/self/task", Integer.toString(spare.tid));
            awaitOrFail(() -> !Files.exists(task), "the kernel to reap the used launch thread " + spare.tid);
        } finally {
            pool.close();
        }
    }

    @Test
    void theSharedPoolRefillsWithUnconfinedSparesAfterConfinedSpawns() throws Exception {
        Launcher launcher = Launcher.get();
        SpareThreads pool = launcher.spares();
        assertThat(pool.capacity()).isEqualTo(SpareThreads.configuredCapacity());
        long before = pool.handedOff();
        for (int i = 0; i < 20; i++) {
            assertThat(collect(launcher.spawn(probe(), confined)).assertOk().out()).isEqualTo("mine\ndenied\n");
        }
        if (pool.capacity() == 0) {
            System.err.println("spares turned off by -D" + SpareThreads.PROPERTY + "=0: only the fresh-thread path was used");
            assertThat(pool.handedOff()).isEqualTo(before);
            return;
        }
        assertThat(pool.handedOff() - before).as("sequential spawns use the spares").isPositive();
        awaitOrFail(() -> pool.parked().size() == pool.capacity(), "the refill thread to fill the pool");
        for (SpareThread s : pool.parked()) {
            awaitOrFail(() -> s.tid != 0, "a spare to record its thread id");
            ParkedSpares.assertParkedSpare(s.tid);
            assertThat(s.thread.getName()).startsWith("magus-sandbox-spare-");
        }
        assertThat(pool.refiller().isAlive()).isTrue();
    }

    @Test
    void aBurstThatFindsThePoolEmptyStartsEveryChildOnAFreshThread() throws Exception {
        SpareThreads pool = new SpareThreads(2, false); // no refill: the burst must run it dry
        int burst = 8;
        ExecutorService callers = Executors.newFixedThreadPool(burst);
        try {
            Launcher launcher = new Launcher(true, pool);
            pool.refill();
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Children.Result>> results = new ArrayList<>();
            for (int i = 0; i < burst; i++) {
                results.add(callers.submit(() -> {
                    start.await();
                    return collect(launcher.spawn(probe(), confined));
                }));
            }
            start.countDown();
            for (Future<Children.Result> f : results) {
                assertThat(f.get(60, TimeUnit.SECONDS).assertOk().out()).isEqualTo("mine\ndenied\n");
            }
            assertThat(pool.handedOff()).as("two spares, then fresh threads").isEqualTo(2);
            assertThat(pool.parked()).isEmpty();
        } finally {
            callers.shutdown();
            assertThat(callers.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
            pool.close();
        }
        awaitOrFail(() -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.getName().startsWith("magus-sandbox-launch-") && t.isAlive()), "every launch thread to end");
    }

    @Test
    void aCallerWithNoNewPrivsGetsAFreshThreadThatInheritsItsState() throws Exception {
        SpareThreads pool = new SpareThreads(1, false);
        try {
            Launcher launcher = new Launcher(true, pool);
            pool.refill();
            AtomicReference<Object> result = new AtomicReference<>();
            Thread caller = new Thread(() -> {
                // Possibly confined by its embedder: its child must inherit that, not a spare's state.
                SYS.prctl(LibC.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
                try {
                    result.set(collect(launcher.spawn(probe(), confined)));
                } catch (Throwable e) {
                    result.set(e);
                }
            }, "test-no-new-privs-caller");
            caller.start();
            caller.join();
            assertThat(result.get()).isInstanceOf(Children.Result.class);
            assertThat(((Children.Result) result.get()).assertOk().out()).isEqualTo("mine\ndenied\n");
            assertThat(pool.handedOff()).as("the spare stays parked").isZero();
            assertThat(pool.parked()).hasSize(1);

            assertThat(collect(launcher.spawn(probe(), confined)).assertOk().out()).isEqualTo("mine\ndenied\n");
            assertThat(pool.handedOff()).as("an ordinary caller uses the spare").isEqualTo(1);
        } finally {
            pool.close();
        }
    }

    @Test
    void closingEndsParkedSparesWithoutRunningAnything() throws Exception {
        SpareThreads pool = new SpareThreads(2, false);
        pool.refill();
        List<SpareThread> parked = pool.parked();
        assertThat(parked).hasSize(2);
        pool.close();
        for (SpareThread s : parked) {
            s.thread.join(TimeUnit.SECONDS.toMillis(30));
            assertThat(s.thread.isAlive()).isFalse();
        }
        assertThat(pool.handedOff()).isZero();
        assertThat(pool.parked()).isEmpty();
        assertThat(pool.take()).as("a closed pool has nothing to take").isNull();
    }

    @Test
    void theNumberOfSparesIsConfigurable() {
        String old = System.getProperty(SpareThreads.PROPERTY);
        try {
            System.clearProperty(SpareThreads.PROPERTY);
            assertThat(SpareThreads.configuredCapacity()).isEqualTo(SpareThreads.DEFAULT_CAPACITY);
            System.setProperty(SpareThreads.PROPERTY, "0");
            assertThat(SpareThreads.configuredCapacity()).isZero();
            System.setProperty(SpareThreads.PROPERTY, " 3 ");
            assertThat(SpareThreads.configuredCapacity()).isEqualTo(3);
            for (String bad : List.of("-1", "65", "two")) {
                System.setProperty(SpareThreads.PROPERTY, bad);
                assertThatThrownBy(SpareThreads::configuredCapacity)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining(SpareThreads.PROPERTY);
            }
        } finally {
            if (old == null) {
                System.clearProperty(SpareThreads.PROPERTY);
            } else {
                System.setProperty(SpareThreads.PROPERTY, old);
            }
        }
    }

    @Test
    void aSpareTakenForASpawnThatFailsBeforeItsHandOffIsParkedAgainUnused() throws Exception {
        SpareThreads pool = new SpareThreads(1, false);
        try {
            Launcher launcher = new Launcher(true, pool);
            pool.refill();
            SpareThread spare = pool.parked().get(0);
            awaitOrFail(() -> spare.tid != 0, "the spare to record its thread id");
            SpawnRequest nul = SpawnRequest.of(Children.SH, List.of("-c", "echo a" + (char) 0 + "b"), env, ws);

            assertThatThrownBy(() -> launcher.spawn(nul, confined)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("NUL");

            assertThat(pool.handedOff()).isZero();
            assertThat(pool.parked()).containsExactly(spare);
            assertThat(spare.thread.isAlive()).isTrue();
            ParkedSpares.assertParkedSpare(spare.tid);
            // and it is still good for a spawn: the next one uses it, confined
            assertThat(collect(launcher.spawn(probe(), confined)).assertOk().out()).isEqualTo("mine\ndenied\n");
            assertThat(pool.handedOff()).isEqualTo(1);
            awaitOrFail(() -> !spare.thread.isAlive(), "the used spare to end");
        } finally {
            pool.close();
        }
    }

    @Test
    void anInterruptedCallerStillGetsItsChildAndKeepsTheInterrupt() throws Exception {
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread caller = new Thread(() -> {
            Thread.currentThread().interrupt();
            Spawn s = Launcher.get().spawn(probe(), confined);
            boolean stillInterrupted = Thread.interrupted();
            outcome.set(stillInterrupted ? collect(s).assertOk().out() : "interrupt lost");
        });
        caller.start();
        caller.join(TimeUnit.SECONDS.toMillis(60));
        assertThat(outcome.get()).isEqualTo("mine\ndenied\n");
    }

    @Test
    @org.junit.jupiter.api.Timeout(value = 5, unit = TimeUnit.MINUTES) // an unclosed child end would hang collect()
    void theLaunchThreadReleasesEveryDescriptorOfItsSpawn() throws Exception {
        // The launch thread closes the child's pipe ends (and frees the spawn structures); a
        // leak of the three ends per spawn would show as 150 descriptors here.
        for (int i = 0; i < 5; i++) {
            collect(Launcher.get().spawn(probe(), confined)).assertOk();
        }
        long before = openDescriptors();
        for (int i = 0; i < 50; i++) {
            collect(Launcher.get().spawn(probe(), confined)).assertOk();
        }
        assertThat(openDescriptors()).as("descriptors after 50 spawns").isLessThan(before + 10);
    }

    private static long openDescriptors() throws IOException {
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }

    @Test
    void aSpareGivenBackWhileTheRefillRunsNeverOverfillsThePool() throws Exception {
        SpareThreads pool = new SpareThreads(1, false);
        try {
            pool.refill();
            SpareThread taken = pool.take();
            assertThat(taken).isNotNull();
            pool.refill(); // the refill replaces it...
            SpareThread extra = pool.parked().get(0);
            pool.giveBack(taken); // ...and then it comes back: one of the two must end, unused
            assertThat(pool.parked()).hasSize(1);
            SpareThread retired = pool.parked().contains(taken) ? extra : taken;
            retired.thread.join(TimeUnit.SECONDS.toMillis(30));
            assertThat(retired.thread.isAlive()).as("the spare that did not fit").isFalse();
            assertThat(pool.handedOff()).isZero();
            // and a spare given back before the refill leaves the refill nothing to add
            SpareThread second = pool.take();
            pool.giveBack(second);
            pool.refill();
            assertThat(pool.parked()).containsExactly(second);
        } finally {
            pool.close();
        }
    }

    @Test
    void theSpinIsConfigurable() {
        String p = LaunchSpin.PROPERTY;
        assertThat(LaunchSpin.nanos(p, null, 7)).isEqualTo(7_000);
        assertThat(LaunchSpin.nanos(p, " 0 ", 7)).isZero();
        assertThat(LaunchSpin.nanos(p, "250", 7)).isEqualTo(250_000);
        for (String bad : List.of("-1", "100001", "fast")) {
            assertThatThrownBy(() -> LaunchSpin.nanos(p, bad, 7)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(LaunchSpin.PROPERTY);
        }
    }

    @Test
    void aPoolOfNoSparesAlwaysCreatesAFreshThread() {
        SpareThreads none = new SpareThreads(0, true);
        none.refill();
        assertThat(none.parked()).isEmpty();
        assertThat(none.refiller()).isNull();
        Launcher launcher = new Launcher(true, none);
        assertThat(collect(launcher.spawn(probe(), confined)).assertOk().out()).isEqualTo("mine\ndenied\n");
        assertThat(none.handedOff()).isZero();
    }

    @Test
    void theHandOffMovesTheSpareToTheCallersCpuButTheChildKeepsTheSparesMask() throws Exception {
        Memory callerMask = callerMaskOrSkip();
        SpareThreads pool = new SpareThreads(1, false);
        try {
            pool.refill(); // the spare gets this thread's mask, as the refill thread's would be
            String spareMask = allowedCpus("/proc/self/task/" + SYS.gettid() + "/status");
            int[] cpus = cpus(callerMask);
            Launcher launcher = new Launcher(true, pool);
            pool.refill();
            pool.awaitStarted();
            boolean narrowed = cpus.length > 1;
            if (narrowed) {
                // The caller on one CPU: a child that inherited the hand-off's move would have only that one.
                assertThat(SYS.sched_setaffinity(0, SpareThread.MASK_BYTES, mask(cpus[0]))).isZero();
            } else {
                System.out.println("SpareThreadsTest: one CPU only, so no spare is moved (it could only be moved"
                        + " where it is) and the child's mask cannot differ from the caller's; checking both");
            }
            long moved = pool.movedToCaller();
            String out = childCpus(launcher);
            assertThat(pool.movedToCaller()).as("spares moved to the caller's CPU").isEqualTo(moved + (narrowed ? 1 : 0));
            assertThat(out).as("the child's CPUs").isEqualTo(spareMask);
            if (narrowed) {
                assertThat(out).isNotEqualTo("Cpus_allowed_list:\t" + cpus[0]);
            }
        } finally {
            SYS.sched_setaffinity(0, SpareThread.MASK_BYTES, callerMask);
            pool.close();
        }
    }

    @Test
    void aMaskNarrowedAfterTheSpareStartedIsTheOneTheChildGets() throws Exception {
        Memory callerMask = callerMaskOrSkip();
        int[] cpus = cpus(callerMask);
        if (cpus.length < 2) {
            System.out.println("SpareThreadsTest: skipped, one CPU only: there is no narrower mask to give");
            assumeTrue(false, "one CPU only");
        }
        SpareThreads pool = new SpareThreads(1, false);
        try {
            Launcher launcher = new Launcher(true, pool);
            int last = cpus[cpus.length - 1];
            // As `taskset -a -p` would do to the whole process after the spare started: spare and caller on one CPU.
            pool.refill();
            pool.awaitStarted();
            SpareThread spare = pool.parked().get(0);
            assertThat(SYS.sched_setaffinity(spare.tid, SpareThread.MASK_BYTES, mask(last))).isZero();
            assertThat(SYS.sched_setaffinity(0, SpareThread.MASK_BYTES, mask(last))).isZero();
            assertThat(childCpus(launcher)).as("the child's CPUs after the narrowing").isEqualTo("Cpus_allowed_list:\t" + last);

            // The caller on a CPU the spare may not use (on two CPUs, also the spare's only CPU): not moved.
            pool.refill();
            pool.awaitStarted();
            spare = pool.parked().get(0);
            assertThat(SYS.sched_setaffinity(spare.tid, SpareThread.MASK_BYTES, mask(last))).isZero();
            assertThat(SYS.sched_setaffinity(0, SpareThread.MASK_BYTES, mask(cpus[0]))).isZero();
            long moved = pool.movedToCaller();
            assertThat(childCpus(launcher)).as("the child of a spare kept off the caller's CPU")
                    .isEqualTo("Cpus_allowed_list:\t" + last);
            assertThat(pool.movedToCaller()).as("spares moved to a CPU outside their mask").isEqualTo(moved);
        } finally {
            SYS.sched_setaffinity(0, SpareThread.MASK_BYTES, callerMask);
            pool.close();
        }
    }

    /** This thread's CPU mask; skips (saying why) on a machine whose mask does not fit 1 024 CPUs. */
    private static Memory callerMaskOrSkip() {
        Memory m = new Memory(SpareThread.MASK_BYTES);
        boolean fits = SYS.sched_getaffinity(0, SpareThread.MASK_BYTES, m) == 0;
        if (!fits) {
            System.out.println("SpareThreadsTest: skipped, this machine's CPU mask does not fit 1 024 CPUs,"
                    + " so spares are never moved");
        }
        assumeTrue(fits, "CPU mask larger than 1 024 CPUs");
        return m;
    }

    private static Memory mask(int cpu) {
        Memory one = new Memory(SpareThread.MASK_BYTES);
        one.clear(SpareThread.MASK_BYTES);
        one.setByte(cpu / 8, (byte) (1 << (cpu % 8)));
        return one;
    }

    /** Spawns a confined child that prints its Cpus_allowed_list line. */
    private String childCpus(Launcher launcher) {
        SpawnRequest request = new SpawnRequest(Children.SH,
                List.of("sh", "-c", "grep Cpus_allowed_list /proc/self/status"), env, ws, Stdio.NULL_INPUT);
        return collect(launcher.spawn(request, confined)).assertOk().out().strip();
    }

    private static String allowedCpus(String status) throws IOException {
        return Files.readAllLines(Path.of(status)).stream().filter(l -> l.startsWith("Cpus_allowed_list:"))
                .findFirst().orElseThrow();
    }

    private static int[] cpus(Memory mask) {
        List<Integer> on = new ArrayList<>();
        for (int c = 0; c < SpareThread.MASK_BYTES * 8; c++) {
            if ((mask.getByte(c / 8) & (1 << (c % 8))) != 0) {
                on.add(c);
            }
        }
        return on.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Waits (bounded, not a timing assertion) for something another thread or the kernel does. */
    private static void awaitOrFail(BooleanSupplier cond, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(5);
        }
    }
}
