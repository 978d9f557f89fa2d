package dev.magus.landlock.launch;

import static dev.magus.landlock.launch.Children.assumeLandlock;
import static dev.magus.landlock.launch.Children.env;
import static dev.magus.landlock.launch.Children.rule;
import static dev.magus.landlock.launch.Children.systemPlus;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Code;
import dev.magus.events.SandboxException;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.compile.CompiledRuleset;
import dev.magus.landlock.sys.LibC;
import dev.magus.landlock.sys.Natives;
import dev.magus.landlock.sys.Syscalls;
import dev.magus.policy.fs.AccessMode;
import dev.magus.events.Mode;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** When the kernel layer cannot be applied to a child, the child does not start: it never runs with less than promised. */
class RefusalTest {
    private static final Syscalls SYS = Natives.syscalls();

    @TempDir
    Path ws;

    /** Spawns from a throwaway thread already 16 domains deep (allow-all), where one more domain is E2BIG. */
    private Throwable spawnFromAFullStack(Mode mode) throws InterruptedException {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Spawn> spawned = new AtomicReference<>();
        SpawnRequest req = new SpawnRequest(Children.SH, List.of("sh", "-c", "true"), env(ws), ws, Stdio.NULL_INPUT);
        Launcher launcher = Launcher.get();
        try (Confinement c = Confinement.prepare(mode, systemPlus(rule(ws, AccessMode.RWX)), LandlockProbe.kernel());
             CompiledRuleset all = CompiledRuleset.allowAll(LandlockProbe.kernel().abi());
             CompiledRuleset.Lease lease = all.lease()) {
            Thread t = new Thread(() -> {
                SYS.prctl(LibC.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
                while (SYS.landlockRestrictSelf(lease.fd(), 0) == 0) {
                    // fill the stack of nested domains
                }
                try {
                    spawned.set(launcher.spawn(req, c));
                } catch (Throwable e) {
                    thrown.set(e);
                }
            }, "test-full-domain-stack");
            t.start();
            t.join();
        }
        if (spawned.get() instanceof Spawn.Started s) {
            s.child().waitFor();
            s.child().close();
        }
        assertThat(spawned.get()).as("no child may start").isNull();
        return thrown.get();
    }

    @Test
    void requiredRefusesWithMgs2012() throws InterruptedException {
        assumeLandlock();
        Throwable e = spawnFromAFullStack(Mode.REQUIRED);
        assertThat(e).isInstanceOf(SandboxException.class);
        assertThat(((SandboxException) e).code()).isEqualTo(Code.MGS2012);
        assertThat(e.getMessage()).contains("landlock_restrict_self").contains("E2BIG");
    }

    @Test
    void bestEffortRefusesToo() throws InterruptedException {
        assumeLandlock();
        Throwable e = spawnFromAFullStack(Mode.BEST_EFFORT);
        assertThat(e).isInstanceOf(SandboxException.class);
        assertThat(((SandboxException) e).code()).isEqualTo(Code.MGS2004);
    }
}
