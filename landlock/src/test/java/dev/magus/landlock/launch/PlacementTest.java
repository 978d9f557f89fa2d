package dev.magus.landlock.launch;

import static dev.magus.landlock.launch.Children.assumeLandlock;
import static dev.magus.landlock.launch.Children.env;
import static dev.magus.landlock.launch.Children.rule;
import static dev.magus.landlock.launch.Children.systemPlus;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Mode;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.policy.fs.AccessMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A confined child born in the cgroup its {@link Placement} names: it reads its own
 * {@code /proc/self/cgroup} as its first act, and the calling thread stays where it was. An
 * unconfined spawn, on the caller's thread, is never moved. As root with a cgroup2 hierarchy
 * (skips, saying why, elsewhere).
 */
class PlacementTest {
    @TempDir
    Path root;
    Path ws;
    String own;
    Path dir;
    String path;

    @BeforeEach
    void setUp() throws IOException {
        assumeLandlock();
        Children.assumeRoot();
        String mountinfo = Files.readString(Path.of("/proc/self/mountinfo"));
        Path mount = mountinfo.lines().filter(l -> l.contains(" - cgroup2 ")).map(l -> Path.of(l.split(" ")[4]))
                .findFirst().orElse(null);
        own = Files.readString(Path.of("/proc/self/cgroup")).lines().filter(l -> l.startsWith("0::"))
                .map(l -> l.substring(3)).findFirst().orElse(null);
        String why = "placement test skipped: no cgroup2 hierarchy, or this process is in none of it";
        if (mount == null || own == null) {
            System.err.println(why);
        }
        Assumptions.assumeTrue(mount != null && own != null, why);
        String name = "placement-test-" + UUID.randomUUID();
        dir = (own.equals("/") ? mount : mount.resolve(own.substring(1))).resolve(name);
        path = (own.equals("/") ? "" : own) + "/" + name;
        Files.createDirectory(dir);
        Files.writeString(dir.resolve("cgroup.type"), "threaded");
        ws = Files.createDirectories(root.resolve("ws"));
    }

    @AfterEach
    void tearDown() throws Exception {
        if (dir == null) {
            return;
        }
        // The launch thread that moved itself in may still be ending when the child is reaped: the
        // cgroup is busy until it has gone. A deadline, not a timing assertion.
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                Files.deleteIfExists(dir);
                return;
            } catch (java.nio.file.FileSystemException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(20);
            }
        }
    }

    @Test
    void aConfinedChildIsBornInThePlacementsCgroupAndTheCallerStays() throws IOException {
        try (Confinement c = Confinement.prepare(Mode.REQUIRED, systemPlus(rule(ws, AccessMode.RWX)), LandlockProbe.kernel());
             Placement p = Placement.open(dir)) {
            Children.Result r = spawn(c, p).assertOk();
            assertThat(r.out().strip()).isEqualTo("0::" + path);
        }
        assertThat(Files.readString(Path.of("/proc/thread-self/cgroup"))).contains("0::" + own + "\n");
    }

    @Test
    void anUnconfinedSpawnIsNeverMoved() throws IOException {
        try (Placement p = Placement.open(dir)) {
            Children.Result r = spawn(Confinement.off(), p).assertOk();
            assertThat(r.out().strip()).isEqualTo("0::" + own);
        }
    }

    private Children.Result spawn(Confinement c, Placement p) {
        SpawnRequest request = SpawnRequest.of(Children.SH, List.of("-c", "grep '^0::' /proc/self/cgroup"), env(root), ws);
        Spawn s = Launcher.get().spawn(request, c, null, p);
        assertThat(s).isInstanceOf(Spawn.Started.class);
        return Children.collect(((Spawn.Started) s).child());
    }
}
