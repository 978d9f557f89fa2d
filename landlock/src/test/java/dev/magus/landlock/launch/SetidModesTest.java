package dev.magus.landlock.launch;

import static dev.magus.landlock.launch.Children.assumeLandlock;
import static dev.magus.landlock.launch.Children.assumeRoot;
import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.events.Mode;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.compile.NetRules;
import dev.magus.landlock.seccomp.SocketRules;
import dev.magus.policy.fs.AccessMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A confined root child cannot leave a set-user-ID or set-group-ID file in its workspace, under
 * socket rules that refuse no socket (where no filter used to be installed): each way of
 * setting the bits is refused, and ordinary modes still work.
 */
class SetidModesTest {
    @TempDir
    Path ws;

    @BeforeEach
    void assumptions() {
        assumeLandlock();
        assumeRoot();
    }

    private Children.Result sh(String script) {
        try (Confinement c = Confinement.prepare(Mode.REQUIRED, Children.systemPlus(Children.rule(ws, AccessMode.RWX)),
                NetRules.OPEN, SocketRules.NOTHING, LandlockProbe.kernel())) {
            return Children.sh(c, ws, Children.env(ws), script);
        }
    }

    private int mode(String name) throws IOException {
        return (Integer) Files.getAttribute(ws.resolve(name), "unix:mode", LinkOption.NOFOLLOW_LINKS);
    }

    private void noSetId(String name) throws IOException {
        if (Files.exists(ws.resolve(name), LinkOption.NOFOLLOW_LINKS)) {
            assertThat(mode(name) & 06000).as("%s mode %o", name, mode(name)).isZero();
        }
    }

    @Test
    void aRootChildCannotSetTheSetIdBitsAnyWayButOrdinaryModesWork() throws IOException {
        Children.Result r = sh("cp /bin/sh sh1; chmod 4755 sh1; echo chmod4755 $?\n"
                + "cp /bin/sh sh2; chmod 755 sh2; chmod g+s sh2; echo chmodgs $?\n"
                + "install -m 4755 /bin/sh sh3; echo install $?\n"
                + "/usr/bin/python3 -c '\n"
                + "import os\n"
                + "try:\n"
                + "    os.close(os.open(\"py\", os.O_CREAT | os.O_WRONLY, 0o4755)); print(\"pyopen ok\")\n"
                + "except OSError as e:\n"
                + "    print(\"pyopen\", e.errno)\n"
                + "'\n"
                + "cp /bin/sh plain; chmod 755 plain; echo chmod755 $?\n"
                + "echo hello > made; echo made $?\n"
                + "mkdir d; chmod 2775 d; echo dirgs $?\n");
        assertThat(r.out().lines()).contains("chmod4755 1", "chmodgs 1", "pyopen 1", "chmod755 0", "made 0", "dirgs 1")
                .noneMatch(l -> l.equals("install 0"));
        assertThat(r.err()).contains("Operation not permitted");
        for (String name : List.of("sh1", "sh2", "sh3", "py", "d")) {
            noSetId(name);
        }
        assertThat(ws.resolve("py")).doesNotExist();
        assertThat(mode("plain") & 07777).isEqualTo(0755);
        assertThat(Files.getPosixFilePermissions(ws.resolve("plain"))).contains(PosixFilePermission.OTHERS_EXECUTE);
        assertThat(Files.readString(ws.resolve("made"))).isEqualTo("hello\n");

        // The same command unconfined sets the bit: the refusal above is the filter's.
        Children.sh(Confinement.off(), ws, Children.env(ws), "cp /bin/sh control && chmod 4755 control").assertOk();
        assertThat(mode("control") & 06000).isEqualTo(04000);
    }

    @Test
    void aRootChildWritingToASetUserIdFileClearsTheBitsSinceItHasNoFsetid() throws Exception {
        Path f = ws.resolve("already");
        Files.copy(Path.of("/bin/sh").toRealPath(), f);
        // set from outside the sandbox, as if the file had been there before the run
        assertThat(new ProcessBuilder("chmod", "6755", f.toString()).start().waitFor()).isZero();
        assertThat(mode("already") & 06000).isEqualTo(06000);
        sh("echo >> already").assertOk();
        assertThat(mode("already") & 06000).isZero();
    }
}
