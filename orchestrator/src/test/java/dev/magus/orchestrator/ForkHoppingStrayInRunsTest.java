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
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A chain that forks, leaves its group and session ({@code setsid}) and exits every few
 * milliseconds, so that at every instant some link of it is alive and none for long: a run
 * ends atomically all the same. When the run has ended, no link of the chain is alive, or the
 * run failed as unaudited; never an exit 0 with a writer alive. A hundred tries, in batches.
 */
class ForkHoppingStrayInRunsTest {
    /** Forks, setsid, forks, exits: the grandchild sleeps a few ms and hops again, for ten seconds at most. */
    static final String HOP = """
            import os, sys, time
            start = time.time()
            def chain():
                while time.time() - start < 10:
                    if os.fork() > 0:
                        os._exit(0)
                    os.setsid()
                    if os.fork() > 0:
                        os._exit(0)
                    time.sleep(0.002)
                os._exit(0)
            if os.fork() == 0:
                chain()
            time.sleep(0.05)
            """;

    @TempDir
    Path root;
    TestHost t;
    Path python;

    @BeforeEach
    void setUp() throws IOException {
        TestHost.assumeLandlock();
        Optional<Path> found = dev.magus.policy.LookPath.find("python3", "/usr/bin:/bin", root);
        if (found.isEmpty()) {
            System.err.println("fork-hopping stray test skipped: no /usr/bin/python3 here");
        }
        Assumptions.assumeTrue(found.isPresent(), "no /usr/bin/python3 here");
        python = found.get();
        t = new TestHost(root).yaml("sandbox:\n  mode: required\n");
        Files.writeString(t.workspace.resolve("hop.py"), HOP);
        // The subreaper's freeze-then-kill, as where runs get no cgroup (ForkHoppingContainedInRunsTest: with one).
        System.setProperty(Containment.FORCE, "freeze");
    }

    @AfterEach
    void clear() {
        System.clearProperty(Containment.FORCE);
    }

    @ParameterizedTest(name = "batch {0}")
    @ValueSource(ints = {1, 2, 3, 4})
    void theChainIsGoneWhenTheRunEndsOrTheRunFails(int batch) throws Exception {
        tries(t.orchestrator(), t.workspace, python, batch, (i, run, events, result, alive) -> {
            boolean unaudited = events.stream().filter(e -> e instanceof RunEvent.Diag).map(e -> ((RunEvent.Diag) e).diagnostic())
                    .anyMatch(d -> d.code() == Code.MGS2002 && d.layer() == Layer.AUDIT);
            assertThat(alive.isEmpty() || (result.status() != 0 && unaudited))
                    .as("try %d of batch %d: status %d, links alive %s, events %s", i, batch, result.status(), alive,
                            TestHost.text(events))
                    .isTrue();
        });
    }

    /** What one try of the chain must satisfy. */
    interface Check {
        void check(int i, Run run, List<RunEvent> events, RunResult result, List<Long> alive) throws Exception;
    }

    /** A batch of 25 tries of the chain in {@code workspace} (which holds {@code hop.py}), each judged by {@code check}. */
    static void tries(Orchestrator o, Path workspace, Path python, int batch, Check check) throws Exception {
        for (int i = 0; i < 25; i++) {
            String marker = "hop-" + UUID.randomUUID();
            Run run = o.submit(RunRequest.builder(workspace, python.toString(), "hop.py", marker).build());
            List<RunEvent> events = TestHost.events(run);
            RunResult result = run.result().block(TestHost.DEADLINE);
            List<Long> alive = alive(marker);
            try {
                check.check(i, run, events, result, alive);
            } finally {
                // A chain that escaped keeps hopping: kill what carries the marker until nothing does,
                // so that no later test in this JVM meets it as a stray of its own.
                for (int round = 0; round < 200 && !alive.isEmpty(); round++) {
                    alive.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
                    Thread.sleep(5);
                    alive = alive(marker);
                }
            }
        }
    }

    /** The processes whose command line carries {@code marker}. */
    static List<Long> alive(String marker) throws IOException {
        List<Long> out = new ArrayList<>();
        byte[] needle = marker.getBytes(StandardCharsets.UTF_8);
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"))) {
            for (Path p : procs) {
                String name = p.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                try {
                    byte[] cmd = Files.readAllBytes(p.resolve("cmdline"));
                    if (new String(cmd, StandardCharsets.ISO_8859_1).contains(new String(needle, StandardCharsets.ISO_8859_1))) {
                        String stat = Files.readString(p.resolve("stat"));
                        if (stat.charAt(stat.lastIndexOf(')') + 2) != 'Z') {
                            out.add(Long.parseLong(name));
                        }
                    }
                } catch (IOException | RuntimeException gone) {
                    // ended while looked at
                }
            }
        }
        return out;
    }
}
