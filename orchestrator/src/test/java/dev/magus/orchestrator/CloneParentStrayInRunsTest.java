package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.orchestrator.run.Run;
import dev.magus.orchestrator.run.RunRequest;
import dev.magus.orchestrator.run.RunResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run's leader that makes a child with {@code clone(CLONE_PARENT)} makes it a child of the
 * magus thread that spawned the leader (the caller in mode off, a launch thread when confined),
 * not of magus's thread-group leader, where orphans go. The end-of-run check must read that
 * thread's list too: the child, out of the run's group (setsid), is killed before it can plant
 * anything. Real children; python3 makes the raw clone.
 */
class CloneParentStrayInRunsTest {
    /** Clones with CLONE_PARENT | SIGCHLD; the child leaves the group, writes its pid, waits 2 s and plants. */
    static final String SCRIPT = String.join("\n",
            "import ctypes, os, platform, time",
            "nr = {'x86_64': 56, 'aarch64': 220}[platform.machine()]",
            "libc = ctypes.CDLL(None, use_errno=True)",
            "z = ctypes.c_long(0)",
            "pid = libc.syscall(ctypes.c_long(nr), ctypes.c_long(0x8000 | 17), z, z, z, z)",
            "if pid == 0:",
            "    os.setsid()",
            "    fd = os.open('/dev/null', os.O_RDWR)",
            "    for i in (0, 1, 2): os.dup2(fd, i)",
            "    open('cp.tmp', 'w').write(str(os.getpid()))",
            "    os.rename('cp.tmp', 'cp.pid')",
            "    time.sleep(2)",
            "    open('planted', 'w').close()",
            "    os._exit(0)",
            "if pid < 0: raise SystemExit('clone failed: %d' % ctypes.get_errno())",
            "while not os.path.exists('cp.pid'): time.sleep(0.02)",
            "");

    @TempDir
    Path root;

    @Test
    void aCloneParentChildOfAnUnconfinedRunIsKilledWithTheRun() throws Exception {
        run("sandbox:\n  mode: off\n");
    }

    @Test
    void aCloneParentChildOfAConfinedRunIsKilledWithTheRun() throws Exception {
        TestHost.assumeLandlock();
        run("sandbox:\n  mode: required\n");
    }

    private void run(String yaml) throws Exception {
        TestHost.assumeChildren();
        Path python = List.of(Path.of("/usr/bin/python3"), Path.of("/bin/python3")).stream().filter(Files::isExecutable)
                .findFirst().orElse(null);
        Assumptions.assumeTrue(python != null, "skipped: no python3 here to make the raw clone");
        Assumptions.assumeTrue(List.of("amd64", "x86_64", "aarch64").contains(System.getProperty("os.arch")),
                "skipped: the clone's system call number is known for x86-64 and aarch64 only");
        TestHost t = new TestHost(root).yaml(yaml);
        Run run = t.orchestrator().submit(RunRequest.builder(t.workspace, python.toString(), "-c", SCRIPT).build());
        List<dev.magus.events.RunEvent> events = TestHost.events(run);
        RunResult result = run.result().block(TestHost.DEADLINE);
        assertThat(result.status()).as(TestHost.text(events)).isZero();
        long sibling = Long.parseLong(Files.readString(t.workspace.resolve("cp.pid")).strip());

        assertThat(ProcessHandle.of(sibling).map(ProcessHandle::isAlive).orElse(false))
                .as("the CLONE_PARENT child %d is gone when the run ends", sibling).isFalse();
        TimeUnit.SECONDS.sleep(3);
        assertThat(t.workspace.resolve("planted")).doesNotExist();
    }
}
