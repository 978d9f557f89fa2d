package dev.magus.landlock.launch;

import static dev.magus.landlock.launch.Children.assumeLandlock;
import static dev.magus.landlock.launch.Children.assumeRoot;
import static dev.magus.landlock.launch.Children.env;
import static dev.magus.landlock.launch.Children.rule;
import static dev.magus.landlock.launch.Children.systemPlus;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.sys.Capabilities;
import dev.magus.policy.fs.AccessMode;
import dev.magus.events.Mode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * As root, Landlock's ptrace rule keeps a child out of other processes' memory and environment
 * only once its capabilities are cut. Each test runs its control next to it: the same child
 * from a launcher that keeps every capability, which gets through.
 */
class RootCapabilitiesTest {
    @TempDir
    Path ws;

    @BeforeEach
    void assumptions() {
        assumeLandlock();
        assumeRoot();
    }

    private Children.Result run(Launcher launcher, Confinement c, String script) {
        Spawn s = launcher.spawn(new SpawnRequest(Children.SH, List.of("sh", "-c", script), env(ws), ws, Stdio.NULL_INPUT), c);
        return Children.collect(((Spawn.Started) s).child());
    }

    private Confinement workspace() {
        return Confinement.prepare(Mode.REQUIRED, systemPlus(rule(ws, AccessMode.RWX)), LandlockProbe.kernel());
    }

    @Test
    void aRootChildCannotReadItsParentsEnvironmentButWouldWithItsCapabilities() {
        assertThat(Launcher.get().dropsCapabilities()).isTrue();
        try (Confinement c = workspace()) {
            String script = "tr '\\0' '\\n' < /proc/$PPID/environ";
            Children.Result cut = run(Launcher.get(), c, script);
            assertThat(cut.status()).isNotZero();
            assertThat(cut.out()).isEmpty();
            assertThat(cut.err()).contains("Permission denied");

            Children.Result kept = run(new Launcher(false), c, script);
            assertThat(kept.status()).as("control: a confined root child with CAP_SYS_ADMIN reads the JVM's environ").isZero();
            assertThat(kept.out()).contains("PATH=");
        }
    }

    @Test
    void aRootChildKeepsOnlyTheKeptCapabilities() throws IOException {
        long bounding = capability("CapBnd", Files.readString(Path.of("/proc/self/status")));
        try (Confinement c = workspace()) {
            String status = run(Launcher.get(), c, "cat /proc/self/status").assertOk().out();
            long expected = Capabilities.KEPT & bounding;
            assertThat(capability("CapBnd", status)).isEqualTo(expected);
            assertThat(capability("CapEff", status)).isEqualTo(expected);
            assertThat(capability("CapPrm", status)).isEqualTo(expected);
            assertThat(capability("CapInh", status)).isZero();
            assertThat(capability("CapAmb", status)).isZero();
        }
    }

    @Test
    void aRootChildCannotMakeADeviceNodeInTheWorkspace() {
        try (Confinement c = workspace()) {
            // 7,0 is /dev/loop0: with CAP_MKNOD a node in the write grant opens a raw block device.
            run(Launcher.get(), c, "mknod blk b 7 0").assertFailed();
            assertThat(ws.resolve("blk")).doesNotExist();

            run(new Launcher(false), c, "mknod blk b 7 0 && rm blk").assertOk();
        }
    }

    /** A packet socket and a raw ICMP one, as Python opens them; prints each outcome. */
    static final String RAW_SOCKETS = "/usr/bin/python3 -c '\n"
            + "import socket\n"
            + "for name, args in ((\"packet\", (17, socket.SOCK_RAW, 0x0300)), (\"raw\", (socket.AF_INET, socket.SOCK_RAW, 1))):\n"
            + "    try:\n"
            + "        socket.socket(*args).close(); print(name, \"opened\")\n"
            + "    except OSError as e:\n"
            + "        print(name, \"refused\", e.errno)\n"
            + "'";

    @Test
    void aRootChildCannotOpenPacketOrRawSocketsEvenUnderNetworkOpen() {
        try (Confinement c = workspace()) {
            String cut = run(Launcher.get(), c, RAW_SOCKETS).assertOk().out();
            // EPERM (1): the capability is gone; the seccomp layer leaves these alone under open.
            assertThat(cut).contains("packet refused 1").contains("raw refused 1");

            String kept = run(new Launcher(false), c, RAW_SOCKETS).assertOk().out();
            assertThat(kept).as("control: with CAP_NET_RAW a confined root child opens both").contains("packet opened")
                    .contains("raw opened");
        }
    }

    private static long capability(String name, String status) {
        return status.lines().filter(l -> l.startsWith(name + ":")).findFirst()
                .map(l -> Long.parseUnsignedLong(l.substring(name.length() + 1).strip(), 16))
                .orElseThrow(() -> new AssertionError(name + " missing from " + status));
    }
}
