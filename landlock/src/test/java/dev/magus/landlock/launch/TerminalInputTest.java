package dev.magus.landlock.launch;

import static dev.magus.landlock.launch.Children.assumeLandlock;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import dev.magus.events.Mode;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.sys.LibC;
import dev.magus.landlock.sys.Natives;
import dev.magus.landlock.sys.Syscalls;
import dev.magus.policy.fs.AccessMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A terminal given to a real child as its descriptor 0 ({@link Stdio.InputFrom}): the child sees
 * a terminal, has no controlling one, and, confined, cannot push input into it (TIOCSTI), which
 * the same child unconfined and root can.
 */
class TerminalInputTest {
    private static final Syscalls SYS = Natives.syscalls();
    private static final Path PYTHON = Path.of("/usr/bin/python3");
    private static final long TIOCSPTLCK = 0x40045431L;
    private static final long TIOCGPTPEER = 0x5441;
    private static final int O_NOCTTY = 0x100;

    @TempDir
    Path dir;
    private int master = -1;
    private int terminal = -1;

    @BeforeEach
    void pty() {
        assumeLandlock();
        // A pseudo-terminal of the test's own: its pair's other end as the child's descriptor 0.
        master = SYS.open("/dev/ptmx\0".getBytes(StandardCharsets.US_ASCII), LibC.O_RDWR | O_NOCTTY | LibC.O_CLOEXEC, 0);
        if (master < 0) {
            String why = "skipped: no pseudo-terminal here (open /dev/ptmx: " + SYS.describe(SYS.errno()) + ")";
            System.err.println(why);
            Assumptions.assumeTrue(false, why);
        }
        try (Memory zero = new Memory(4)) {
            zero.setInt(0, 0);
            assertThat(SYS.ioctl(master, TIOCSPTLCK, Pointer.nativeValue(zero))).isZero();
        }
        long peer = SYS.ioctl(master, TIOCGPTPEER, LibC.O_RDWR | O_NOCTTY | LibC.O_CLOEXEC);
        assertThat(peer).as("TIOCGPTPEER").isNotNegative();
        terminal = (int) peer;
    }

    @AfterEach
    void close() {
        if (terminal >= 0) {
            SYS.close(terminal);
        }
        if (master >= 0) {
            SYS.close(master);
        }
    }

    private Confinement confined() {
        return Confinement.prepare(Mode.REQUIRED, Children.systemPlus(Children.rule(dir, AccessMode.RWX)),
                LandlockProbe.kernel());
    }

    private Children.Result run(Confinement c, Path exe, String... argv) {
        return Children.run(new SpawnRequest(exe, List.of(argv), Children.env(dir), dir, new Stdio.InputFrom(terminal)), c);
    }

    @Test
    void aConfinedChildSeesTheTerminalAsItsInputWithoutControllingIt() {
        try (Confinement c = confined()) {
            String out = run(c, Children.SH, "sh", "-c",
                    "test -t 0 && echo tty || echo notty; test -t 1 && echo out-tty || echo out-pipe;"
                            + " read -r _ _ _ _ _ _ nr _ < /proc/self/stat; echo ctty=$nr").assertOk().out();
            assertThat(out.lines()).containsExactly("tty", "out-pipe", "ctty=0");
        }
        // The caller's descriptor is its own still: the child had a copy.
        assertThat(SYS.fcntl(terminal, 1 /* F_GETFD */, 0)).isNotNegative();
    }

    @Test
    void aConfinedChildCannotPushInputIntoTheTerminalAndAnUnconfinedRootOneCould() {
        Assumptions.assumeTrue(Files.isExecutable(PYTHON), "skipped: no " + PYTHON);
        String script = "import fcntl, termios\n"
                + "for name, req in (('TIOCSTI', termios.TIOCSTI), ('TIOCLINUX', 0x541C)):\n"
                + "    try:\n"
                + "        fcntl.ioctl(0, req, b'x'); print(name, 'ok')\n"
                + "    except OSError as e:\n"
                + "        print(name, e.errno)\n";
        try (Confinement c = confined()) {
            assertThat(run(c, PYTHON, "python3", "-c", script).assertOk().out().lines())
                    .containsExactly("TIOCSTI 1", "TIOCLINUX 1");
        }
        // Without the filter the kernel lets root (CAP_SYS_ADMIN) push into a terminal that is not
        // its controlling one: the refusal above is the filter's.
        if ("root".equals(System.getProperty("user.name"))) {
            assertThat(run(Confinement.off(), PYTHON, "python3", "-c", script).assertOk().out().lines())
                    .first().isEqualTo("TIOCSTI ok");
        }
    }
}
