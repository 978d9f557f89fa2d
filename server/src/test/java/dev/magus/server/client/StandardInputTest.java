package dev.magus.server.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class StandardInputTest {
    @Test
    void onlyTheJdksClassImageIsAClosedInput() {
        Path home = Path.of("/opt/jdk");
        assertThat(StandardInput.isClassImage(Path.of("/opt/jdk/lib/modules"), home)).isTrue();
        assertThat(StandardInput.isClassImage(Path.of("/dev/null"), home)).isFalse();
        assertThat(StandardInput.isClassImage(Path.of("/dev/pts/0"), home)).isFalse();
        assertThat(StandardInput.isClassImage(Path.of("/home/me/modules"), home)).isFalse();
    }

    @Test
    void thisJvmsInputIsNotClosed() {
        // Surefire starts its forked JVM with a pipe or a file on descriptor 0, never closed.
        assertThat(StandardInput.closedAtStart()).isFalse();
    }
}
