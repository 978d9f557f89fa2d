package dev.magus.landlock.launch;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Memory;
import dev.magus.landlock.sys.LibC;
import dev.magus.landlock.sys.Natives;
import dev.magus.landlock.sys.Syscalls;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which descriptors a child may take as its standard input: the rule as a value, then real descriptors. */
class InputDescriptorsTest {
    private static final Syscalls SYS = Natives.syscalls();

    @TempDir
    Path dir;

    @Test
    void filesPipesSocketsTerminalsAndDevNullPassAndTheRestIsRefused() {
        assertThat(InputDescriptors.refusal(InputDescriptors.S_IFREG | 0644, 0, false, false)).isEmpty();
        assertThat(InputDescriptors.refusal(InputDescriptors.S_IFIFO | 0600, 2, false, false)).isEmpty();
        assertThat(InputDescriptors.refusal(InputDescriptors.S_IFSOCK | 0777, 2, false, false)).isEmpty();
        assertThat(InputDescriptors.refusal(InputDescriptors.S_IFCHR | 0620, 2, true, false)).isEmpty();
        assertThat(InputDescriptors.refusal(InputDescriptors.S_IFCHR | 0666, 0, false, true)).isEmpty();
        assertThat(InputDescriptors.refusal(InputDescriptors.S_IFCHR | 0640, 0, false, false)).get().asString()
                .contains("character device");
        assertThat(InputDescriptors.refusal(InputDescriptors.S_IFDIR | 0755, 0, false, false)).get().asString()
                .contains("directory");
        assertThat(InputDescriptors.refusal(InputDescriptors.S_IFREG | 0644, InputDescriptors.O_WRONLY, false, false))
                .get().asString().contains("writing only");
        assertThat(InputDescriptors.refusal(InputDescriptors.S_IFREG | 0644, InputDescriptors.O_PATH, false, false))
                .get().asString().contains("O_PATH");
        assertThat(InputDescriptors.refusal(0060660, 0, false, false)).as("a block device").isPresent();
    }

    @Test
    void realDescriptors() throws Exception {
        Children.assumeLandlock();
        Path file = Files.writeString(dir.resolve("f"), "x");
        int reg = open(file, LibC.O_RDONLY);
        int wo = open(file, 1);
        int d = open(dir, LibC.O_RDONLY);
        int nul = open(Path.of("/dev/null"), LibC.O_RDONLY);
        int zero = open(Path.of("/dev/zero"), LibC.O_RDONLY);
        try (Memory fds = new Memory(8)) {
            assertThat(SYS.pipe2(fds, LibC.O_CLOEXEC)).isZero();
            int r = fds.getInt(0);
            int w = fds.getInt(4);
            try {
                assertThat(InputDescriptors.refusal(reg)).isEmpty();
                assertThat(InputDescriptors.refusal(r)).isEmpty();
                assertThat(InputDescriptors.refusal(nul)).isEmpty();
                assertThat(InputDescriptors.refusal(wo)).isPresent();
                assertThat(InputDescriptors.refusal(w)).as("a pipe's write end").isPresent();
                assertThat(InputDescriptors.refusal(d)).isPresent();
                assertThat(InputDescriptors.refusal(zero)).as("/dev/zero").isPresent();
                assertThat(Stdio.inputFrom(d)).isEqualTo(Stdio.PIPES);
                assertThat(Stdio.inputFrom(r)).isEqualTo(new Stdio.InputFrom(r));
            } finally {
                SYS.close(r);
                SYS.close(w);
            }
        } finally {
            for (int fd : new int[] {reg, wo, d, nul, zero}) {
                SYS.close(fd);
            }
        }
        assertThat(InputDescriptors.refusal(reg)).as("closed").get().asString().contains("not open");
    }

    private static int open(Path p, int flags) {
        int fd = SYS.open((p + "\0").getBytes(StandardCharsets.UTF_8), flags | LibC.O_CLOEXEC, 0);
        assertThat(fd).as("open %s", p).isNotNegative();
        return fd;
    }
}
