package dev.magus.orchestrator.orphans;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** When the end of a run may skip the pass over /proc: only when magus has no child its launcher does not own. */
class QuietRunTest {
    @TempDir
    Path tmp;

    /** Pass's equals is written out: two passes agree only on the same tasks and the same children. */
    @Test
    void twoPassesAgreeOnlyWhenTasksAndChildrenAreTheSame() {
        QuietRun.Pass p = new QuietRun.Pass(List.of(1L, 2L), List.of(5L, 6L));
        assertThat(p).isEqualTo(new QuietRun.Pass(List.of(1L, 2L), List.of(5L, 6L)))
                .hasSameHashCodeAs(new QuietRun.Pass(List.of(1L, 2L), List.of(5L, 6L)));
        assertThat(p).isNotEqualTo(new QuietRun.Pass(List.of(1L, 3L), List.of(5L, 6L)))
                .isNotEqualTo(new QuietRun.Pass(List.of(1L, 2L), List.of(5L)))
                .isNotEqualTo(new QuietRun.Pass(List.of(5L, 6L), List.of(1L, 2L)))
                .isNotEqualTo(null);
    }

    @Test
    void readsAChildrenFile() {
        assertThat(QuietRun.parse(ascii("123 456 "))).contains(List.of(123L, 456L));
        assertThat(QuietRun.parse(ascii(""))).contains(List.of());
        assertThat(QuietRun.parse(ascii("7"))).contains(List.of(7L));
        assertThat(QuietRun.parse(ascii("12 x "))).isEmpty();
        assertThat(QuietRun.parse(ascii("12345678901 "))).isEmpty();
    }

    @Test
    void quietOnlyWhenEveryChildIsOwned() {
        Set<Long> owned = Set.of(10L, 11L);
        assertThat(QuietRun.quiet(List.of(), owned::contains)).isTrue();
        assertThat(QuietRun.quiet(List.of(10L, 11L), owned::contains)).isTrue();
        assertThat(QuietRun.quiet(List.of(10L, 12L), owned::contains)).isFalse();
    }

    @Test
    void everyTasksListIsReadAndAnUnreadableOneIsADoubt() throws Exception {
        Path tasks = Files.createDirectories(tmp.resolve("task"));
        Files.createDirectories(tasks.resolve("1"));
        Files.writeString(tasks.resolve("1/children"), "5 6 ");
        Files.createDirectories(tasks.resolve("2"));
        Files.writeString(tasks.resolve("2/children"), "7 ");
        assertThat(QuietRun.pass(tasks, 1).orElseThrow())
                .isEqualTo(new QuietRun.Pass(List.of(1L, 2L), List.of(5L, 6L, 7L)));
        // A task with no list (ended while the list was read, or no CONFIG_PROC_CHILDREN): a doubt.
        Files.createDirectories(tasks.resolve("3"));
        assertThat(QuietRun.pass(tasks, 1)).isEmpty();
        assertThat(QuietRun.pass(tmp.resolve("absent"), 1)).isEmpty();
    }

    /**
     * A check's second pass reads the lists its first opened through the same descriptors, at
     * offset 0, so it sees what they hold now; a task the first did not see is opened afresh.
     */
    @Test
    void theSecondPassRereadsTheFirstsDescriptorsFromTheStart() throws Exception {
        Path tasks = Files.createDirectories(tmp.resolve("task"));
        Files.createDirectories(tasks.resolve("1"));
        Files.writeString(tasks.resolve("1/children"), "5 6 ");
        Files.createDirectories(tasks.resolve("2"));
        Files.writeString(tasks.resolve("2/children"), "7 ");
        try (HeldLists held = new HeldLists()) {
            assertThat(QuietRun.pass(tasks, 1, held).orElseThrow())
                    .isEqualTo(new QuietRun.Pass(List.of(1L, 2L), List.of(5L, 6L, 7L)));
            // Rewritten in place: read again from its start through the held descriptor.
            Files.writeString(tasks.resolve("1/children"), "5 ");
            // Gone by its path: still read through the held descriptor, so held it is.
            Files.delete(tasks.resolve("2/children"));
            Files.createDirectories(tasks.resolve("3"));
            Files.writeString(tasks.resolve("3/children"), "8 ");
            assertThat(QuietRun.pass(tasks, 1, held).orElseThrow())
                    .isEqualTo(new QuietRun.Pass(List.of(1L, 2L, 3L), List.of(5L, 7L, 8L)));
        }
        // Without held descriptors the removed list is a doubt, as before.
        assertThat(QuietRun.pass(tasks, 1)).isEmpty();
    }

    /**
     * Checks held at once keep at most {@link HeldLists#BUDGET} descriptors between them
     * (security review: runs ending together must not exhaust the server's descriptors); a list
     * past the budget is opened again by the second pass and still read right.
     */
    @Test
    void checksHeldAtOnceStayWithinTheBudgetAndPastItStillReadRight() throws Exception {
        Path tasks = Files.createDirectories(tmp.resolve("many"));
        int n = HeldLists.BUDGET / 4 + 3;
        for (int i = 1; i <= n; i++) {
            Files.createDirectories(tasks.resolve(Integer.toString(i)));
            Files.writeString(tasks.resolve(i + "/children"), (1000 + i) + " ");
        }
        java.util.List<HeldLists> checks = new java.util.ArrayList<>();
        try {
            for (int c = 0; c < 6; c++) {
                HeldLists held = new HeldLists();
                checks.add(held);
                assertThat(QuietRun.pass(tasks, 1, held)).isPresent();
                assertThat(HeldLists.held()).isLessThanOrEqualTo(HeldLists.BUDGET);
            }
            int kept = checks.stream().mapToInt(HeldLists::kept).sum();
            assertThat(kept).as("six checks of %d lists each", n).isLessThanOrEqualTo(HeldLists.BUDGET).isLessThan(6 * n)
                    .isPositive();
            Files.writeString(tasks.resolve(n + "/children"), "7 ");
            for (HeldLists held : checks) {
                assertThat(QuietRun.pass(tasks, 1, held).orElseThrow().children()).contains(7L).doesNotContain(1000L + n);
            }
        } finally {
            checks.forEach(HeldLists::close);
        }
        assertThat(checks).allSatisfy(h -> assertThat(h.kept()).isZero());
    }

    /** On the kernel's own files: a child this thread starts between two passes is in the second, read at offset 0. */
    @Test
    void aChildStartedBetweenThePassesIsInTheSecond() throws Exception {
        Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/self/task")), "skipped: no /proc/self/task here");
        Path own = Path.of("/proc/self/task");
        long self = ProcessHandle.current().pid();
        try (HeldLists held = new HeldLists()) {
            QuietRun.Pass first = QuietRun.pass(own, self, held).orElseThrow();
            Process child = new ProcessBuilder("sleep", "30").start();
            try {
                assertThat(first.children()).doesNotContain(child.pid());
                QuietRun.Pass second = QuietRun.pass(own, self, held).orElseThrow();
                assertThat(second.children()).contains(child.pid());
                assertThat(second).isNotEqualTo(first);
            } finally {
                child.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * The attack the count-based form missed does not matter here: a descendant that left the
     * child's group (setsid) is re-parented to this process, the subreaper, when its parent
     * ends, and then it is a child no launcher owns.
     */
    @Test
    void anEscapedDescendantIsAChildNoLauncherOwns() throws Exception {
        Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/self/task")), "skipped: no /proc/self/task here");
        Assumptions.assumeTrue(Strays.adopt(), "skipped: this host has no PR_SET_CHILD_SUBREAPER");
        Path pidFile = tmp.resolve("pid");
        Process p = new ProcessBuilder("sh", "-c", "setsid sleep 30 >/dev/null 2>&1 & echo $! > " + pidFile).start();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        long stray = Long.parseLong(Files.readString(pidFile).trim());
        try {
            Optional<QuietRun.Pass> pass = QuietRun.pass(Path.of("/proc/self/task"), ProcessHandle.current().pid());
            assertThat(pass).isPresent();
            assertThat(pass.get().children()).contains(stray);
            // find_alive_thread: handed to the leader thread, not to the thread that started sh,
            // and the fast form alone finds it there.
            assertThat(LeaderList.PROC.children().flatMap(QuietRun::parse).orElseThrow()).contains(stray);
            assertThat(LeaderList.quiet(LeaderList.PROC, pid -> pid != stray)).contains(false);
            assertThat(QuietRun.quiet(pid -> pid != stray)).isFalse();
            assertThat(QuietRun.quiet(pid -> false)).isFalse();
            assertThat(QuietRun.quiet(pid -> pid != stray, exitingLeader())).as("the full pass finds it too").isFalse();
        } finally {
            killAndReap(stray);
        }
    }

    /**
     * A run's child double-forks an orphan and ends: the orphan, a child of the leader thread,
     * is found by the fast form and killed by the collection. Were the fast form to read a
     * list without it, the check would be quiet and the orphan would outlive the run.
     */
    @Test
    void aDoubleForkedOrphanThatOutlivesItsRunIsFoundAndKilled() throws Exception {
        Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/self/task")), "skipped: no /proc/self/task here");
        Assumptions.assumeTrue(Strays.adopt(), "skipped: this host has no PR_SET_CHILD_SUBREAPER");
        String runId = "quiet-" + System.nanoTime();
        // setsid: out of this JVM's process group, where the collection takes it for a JDK child.
        // MAGUS_RUN_ID: the run's, as a confined child's is, so that a run another test left
        // running in this JVM cannot make the orphan ambiguous.
        ProcessBuilder pb = new ProcessBuilder("sh", "-c", "( setsid sleep 60 </dev/null >/dev/null 2>&1 & echo $! )");
        pb.environment().put("MAGUS_RUN_ID", runId);
        Process sh = pb.start();
        Strays.begin(runId, sh.pid());
        long orphan = Long.parseLong(new String(sh.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip());
        try {
            assertThat(sh.waitFor(10, TimeUnit.SECONDS)).isTrue();
            awaitParent(orphan, ProcessHandle.current().pid());
            // Adopted as soon as sh ends, which can be before setsid(1) has called setsid(): until
            // then the orphan is still in this JVM's process group, where the collection takes a
            // process for one of the JDK's own children and leaves it (a confined child's
            // descendants are in a session of their own and can never be there).
            awaitOwnSession(orphan);
            assertThat(LeaderList.PROC.children().flatMap(QuietRun::parse).orElseThrow()).contains(orphan);
            assertThat(LeaderList.quiet(LeaderList.PROC, dev.magus.landlock.launch.Launched::owns)).contains(false);

            Collected c = Strays.collect(runId, sh.pid(), java.time.Duration.ofSeconds(10));

            assertThat(c.killed()).as("the orphan is killed by the collection").isPositive();
            assertThat(c.survivors()).isEmpty();
            assertThat(ProcessHandle.of(orphan).map(ProcessHandle::isAlive).orElse(false))
                    .as("the orphan %d outlives its run", orphan).isFalse();
        } finally {
            Strays.end(runId);
            killAndReap(orphan);
        }
    }

    /**
     * Only the leader's list is read while the leader is steady: a child a non-leader thread
     * started itself (here a {@code ProcessBuilder} child of a thread still alive) is not in
     * it, so it no longer makes the check "not quiet"; told that the leader is exiting, the
     * check makes its pass over every thread and finds that child.
     */
    @Test
    void theFastFormReadsOnlyTheLeadersListAndADoubtfulLeaderMakesTheFullPass() throws Exception {
        Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/self/task")), "skipped: no /proc/self/task here");
        long self = ProcessHandle.current().pid();
        java.util.concurrent.CompletableFuture<Process> started = new java.util.concurrent.CompletableFuture<>();
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        // The thread stays alive while the check runs: a thread that ends hands its children to the leader.
        Thread starter = new Thread(() -> {
            try {
                started.complete(new ProcessBuilder("sleep", "60").start());
                done.await();
            } catch (Exception e) {
                started.completeExceptionally(e);
            }
        }, "quiet-run-starter");
        starter.start();
        Process child = started.get(10, TimeUnit.SECONDS);
        try {
            long pid = child.pid();
            assertThat(QuietRun.pass(Path.of("/proc/self/task"), self).orElseThrow().children())
                    .as("a child of this process").contains(pid);
            assertThat(LeaderList.PROC.children().flatMap(QuietRun::parse).orElseThrow())
                    .as("not in the leader's list").doesNotContain(pid);
            // Every other child is vouched for: only this one is nobody's.
            assertThat(QuietRun.quiet(p -> p != pid)).as("the fast form does not read other threads' lists").isTrue();
            assertThat(QuietRun.quiet(p -> p != pid, exitingLeader())).as("a leader exiting: the full pass").isFalse();
            assertThat(QuietRun.quiet(p -> p != pid, zombieLeader())).as("a zombie leader: the full pass").isFalse();
        } finally {
            done.countDown();
            child.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            starter.join(5000);
        }
    }

    /**
     * A pid the first pass saw as the launcher's, reaped before the second pass and taken by a
     * stranger under the same number, is not vouched for by the first answer: the register is
     * asked again after the last read. The "stranger" here is the
     * same child, which the register stops vouching for after its first answer.
     */
    @Test
    void aPidNoLongerVouchedForAtTheSecondPassIsNotQuiet() throws Exception {
        Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/self/task")), "skipped: no /proc/self/task here");
        Process child = new ProcessBuilder("sleep", "30").start();
        try {
            long pid = child.pid();
            AtomicBoolean asked = new AtomicBoolean();
            // Every other child of this JVM is vouched for: only the answer about this one changes.
            // The full pass (the fast form reads the leader's list, where this child is not).
            boolean quiet = QuietRun.quiet(p -> p != pid || !asked.getAndSet(true), exitingLeader());
            assertThat(asked).as("the first pass asked about the child").isTrue();
            assertThat(quiet).as("the second pass listed a pid the register no longer vouches for").isFalse();
        } finally {
            child.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
    }

    /** This process's leader's real list, with a stat that shows it exiting (PF_EXITING, state still R). */
    static LeaderList.Reader exitingLeader() {
        return leaderWithStat(" R ", 0x400000L | LeaderList.PF_EXITING);
    }

    /** This process's leader's real list, with a stat that shows it a zombie. */
    static LeaderList.Reader zombieLeader() {
        return leaderWithStat(" Z ", 0x400000L);
    }

    private static LeaderList.Reader leaderWithStat(String state, long flags) {
        long self = ProcessHandle.current().pid();
        byte[] stat = ascii(self + " (java)" + state + "1 " + self + " 1 0 -1 " + flags + " 0 0 0 0 1 1 0 0 20 0 30 0 1");
        return new LeaderList.Reader() {
            @Override
            public Optional<byte[]> children() {
                return LeaderList.PROC.children();
            }

            @Override
            public Optional<byte[]> stat() {
                return Optional.of(stat);
            }

            @Override
            public long leader() {
                return self;
            }

            @Override
            public Optional<List<Long>> spawners() {
                return LeaderList.PROC.spawners();
            }
        };
    }

    private static void awaitParent(long pid, long parent) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ProcessHandle.of(pid).flatMap(ProcessHandle::parent).map(ProcessHandle::pid).orElse(-1L) != parent
                && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(20);
        }
        assertThat(ProcessHandle.of(pid).flatMap(ProcessHandle::parent).map(ProcessHandle::pid)).as("adopted").contains(parent);
    }

    /** Waits until {@code pid} leads a process group of its own (setsid done). */
    private static void awaitOwnSession(long pid) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long group = -1;
        while (System.nanoTime() < deadline) {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            group = Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[2]);
            if (group == pid) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
        assertThat(group).as("process group of %d after setsid", pid).isEqualTo(pid);
    }

    /** Kills an adopted process and reaps it: nobody else waits for it, and its zombie would stay this JVM's child. */
    private static void killAndReap(long pid) {
        long self = ProcessHandle.current().pid();
        if (ProcessHandle.of(pid).flatMap(ProcessHandle::parent).map(ProcessHandle::pid).orElse(-1L) != self) {
            return;
        }
        dev.magus.landlock.sys.Syscalls sys = dev.magus.landlock.sys.Natives.syscalls();
        if (sys.kill((int) pid, 9) == 0) {
            sys.waitpid((int) pid, null, 0);
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
