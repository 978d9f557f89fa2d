package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.sys.LibC;
import dev.magus.landlock.sys.Natives;
import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.RunResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A confined run whose first act is PTRACE_SEIZE on every thread of magus (found by a security
 * review). The thread that launches a confined child confines itself first, so it shares the
 * child's Landlock domain, and Landlock lets a process trace another of its own domain: before
 * the fix the child attached to that thread in 24 of 24 runs, stopped it and read its registers
 * (and could have written magus's memory). magus is now not dumpable from its first confined
 * launch on, so tracing it needs CAP_SYS_PTRACE, which no confined child keeps.
 */
class PtraceLaunchThreadInRunsTest {
    @TempDir
    Path root;

    @Test
    void aConfinedChildCannotTraceAnyThreadOfMagus() throws Exception {
        List<String> outs = seize();
        assertThat(outs).hasSize(4).allMatch(o -> o.contains(" none "), "no attach in any run");
        // The flag the launch set stays set for the whole process.
        assertThat(Natives.syscalls().prctl(LibC.PR_GET_DUMPABLE, 0, 0, 0, 0)).isZero();
    }

    private List<String> seize() throws Exception {
        TestHost.assumeChildren();
        TestHost.assumeLandlock();
        Path src = Files.createTempDirectory(root, "src").resolve("seize.c");
        Files.copy(getClass().getResourceAsStream("/seize-launch-thread.c"), src);
        Path exe = src.resolveSibling("seize");
        int cc;
        try {
            Process p = new ProcessBuilder("cc", "-O2", "-static", "-o", exe.toString(), src.toString()).inheritIO().start();
            cc = p.waitFor(120, TimeUnit.SECONDS) ? p.exitValue() : -1;
        } catch (java.io.IOException e) {
            cc = -1;
        }
        if (cc != 0) {
            System.out.println("PtraceLaunchThreadInRunsTest: skipped, no C compiler with a static libc to build the tracer");
            Assumptions.abort("no C compiler with a static libc");
        }
        List<String> outs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            TestHost t = new TestHost(Files.createTempDirectory(root, "h")).yaml("sandbox:\n  mode: required\n");
            Path copy = t.workspace.resolve("seize");
            Files.copy(exe, copy);
            assertThat(copy.toFile().setExecutable(true)).isTrue();
            Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, copy.toString()).build());
            List<dev.magus.events.RunEvent> events = TestHost.events(run);
            RunResult result = run.result().block(TestHost.DEADLINE);
            Path out = t.workspace.resolve("seize.out");
            assertThat(out).as("the tracer ran: %s", TestHost.text(events)).exists();
            outs.add(result.status() + " " + Files.readString(out).strip());
        }
        return outs;
    }
}
