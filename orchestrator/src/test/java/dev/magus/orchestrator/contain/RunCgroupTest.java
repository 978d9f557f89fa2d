package dev.magus.orchestrator.contain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.orchestrator.orphans.ProcessIdentity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One run's cgroup for real, under magus's parent cgroup: a {@code setsid} double fork born in
 * it is killed at its end, and the cgroup removed; a crashed magus's cgroups are swept. Skips,
 * saying why, where this process's runs get no cgroup (not root and no delegation, cgroup v1 only).
 */
class RunCgroupTest {
    Containment.ByCgroup here;

    @BeforeEach
    void setUp() {
        here = assumeCgroups();
    }

    /** Skips, saying why on stderr, unless runs get a cgroup of their own here. */
    public static Containment.ByCgroup assumeCgroups() {
        Containment c = RunCgroups.containment();
        if (!(c instanceof Containment.ByCgroup)) {
            System.err.println("cgroup containment test skipped: " + c.describe());
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(c instanceof Containment.ByCgroup, c.describe());
        return (Containment.ByCgroup) c;
    }

    @Test
    void aSetsidDoubleForkBornInTheCgroupIsKilledAndTheCgroupRemoved() throws Exception {
        RunCgroup cg = RunCgroup.create(here.parent(), here.parentPath(), "test-" + UUID.randomUUID());
        String marker = "stray-" + UUID.randomUUID();
        Process shell = new ProcessBuilder("sh", "-c", "read go; (setsid sh -c 'sleep 300; :' " + marker + " &); sleep 300")
                .redirectErrorStream(true).start();
        try {
            // Moved before it runs anything but the read: what it starts is born in the cgroup.
            Files.writeString(cg.dir().resolve("cgroup.threads"), Long.toString(shell.pid()));
            assertThat(cg.holds(shell.pid())).as("%s in %s", Files.readString(Path.of("/proc/" + shell.pid() + "/cgroup")),
                    cg.path()).isTrue();
            shell.getOutputStream().write("go\n".getBytes());
            shell.getOutputStream().flush();
            List<Long> stray = waitFor(marker);
            assertThat(stray).hasSize(1);
            assertThat(cg.holds(stray.get(0))).as("the setsid grandchild is in the run's cgroup").isTrue();

            RunCgroup.End end = cg.end(Duration.ofSeconds(5));

            assertThat(end).isInstanceOf(RunCgroup.End.Gone.class);
            assertThat(((RunCgroup.End.Gone) end).killed()).isGreaterThanOrEqualTo(2);
            assertThat(((RunCgroup.End.Gone) end).removed()).isTrue();
            assertThat(cg.dir()).doesNotExist();
            assertThat(shell.waitFor(5, TimeUnit.SECONDS)).isTrue();
            assertThat(alive(stray.get(0))).as("the stray is gone").isFalse();
        } finally {
            shell.destroyForcibly();
            RunCgroup.remove(cg.dir());
        }
    }

    @Test
    void anEmptyCgroupEndsAtOnce() throws Exception {
        RunCgroup cg = RunCgroup.create(here.parent(), here.parentPath(), "test-" + UUID.randomUUID());
        assertThat(cg.end(Duration.ofSeconds(1))).isEqualTo(new RunCgroup.End.Gone(0, true));
        assertThat(cg.dir()).doesNotExist();
    }

    @Test
    void aCgroupWithAThreadOfMagusInItIsNeverFrozen() throws Exception {
        RunCgroup cg = RunCgroup.create(here.parent(), here.parentPath(), "test-" + UUID.randomUUID());
        Thread inside = new Thread(() -> {
            try {
                Files.writeString(cg.dir().resolve("cgroup.threads"), "0");
                Thread.sleep(1500);
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        inside.start();
        try {
            Thread.sleep(200);
            RunCgroup.End end = cg.end(Duration.ofMillis(300));
            assertThat(end).isInstanceOf(RunCgroup.End.NotUsed.class);
            assertThat(Files.readString(cg.dir().resolve("cgroup.events"))).contains("frozen 0");
        } finally {
            inside.join();
            // The thread has ended, so the cgroup is empty again and ends at once.
            assertThat(cg.end(Duration.ofSeconds(1))).isInstanceOf(RunCgroup.End.Gone.class);
        }
    }

    @Test
    void theCgroupsOfAMagusThatIsGoneAreSweptAndOursStay() throws Exception {
        ProcessIdentity self = ProcessIdentity.self().orElseThrow();
        // Same namespace, a pid that started at another moment: certainly gone.
        String gone = RunCgroups.PREFIX + new ProcessIdentity(self.pidNamespace(), self.pid(), self.startTicks() + 1).token()
                + "-" + UUID.randomUUID();
        String ours = RunCgroups.PREFIX + self.token() + "-" + UUID.randomUUID();
        RunCgroup stale = RunCgroup.create(here.parent(), here.parentPath(), gone);
        RunCgroup live = RunCgroup.create(here.parent(), here.parentPath(), ours);
        try {
            List<Path> removed = RunCgroups.sweep(here.parent());
            assertThat(removed).contains(stale.dir()).doesNotContain(live.dir());
            assertThat(stale.dir()).doesNotExist();
            assertThat(live.dir()).exists();
        } finally {
            RunCgroup.remove(stale.dir());
            RunCgroup.remove(live.dir());
        }
    }

    private static List<Long> waitFor(String marker) throws Exception {
        for (int i = 0; i < 200; i++) {
            List<Long> found = ProcessHandle.allProcesses()
                    .filter(h -> h.info().commandLine().filter(c -> c.endsWith(marker)).isPresent())
                    .map(ProcessHandle::pid).toList();
            if (!found.isEmpty()) {
                return found;
            }
            Thread.sleep(10);
        }
        return List.of();
    }

    /** Running, or stopped: neither gone nor a zombie (its reaper, not this test's concern, may be slow). */
    private static boolean alive(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
        } catch (IOException gone) {
            return false;
        }
    }
}
