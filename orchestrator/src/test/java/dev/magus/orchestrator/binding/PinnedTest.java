package dev.magus.orchestrator.binding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.landlock.sys.Natives;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What is opened is what was checked: a directory swapped for a link after the check is not followed. */
class PinnedTest {
    @TempDir
    Path root;

    @Test
    void aDirectorySwappedForALinkAfterTheCheckIsRefusedAndNothingIsWrittenWhereItPoints() throws IOException {
        Natives.require();
        Path base = root.toRealPath();
        Path checked = Files.createDirectories(base.resolve("ws/sub"));
        Path elsewhere = Files.createDirectories(base.resolve("elsewhere"));
        // The check resolved ws/sub; then a run swaps it for a link to elsewhere.
        Files.delete(checked);
        Files.createSymbolicLink(checked, elsewhere);
        assertThatThrownBy(() -> Pinned.open(checked)).isInstanceOf(IOException.class).hasMessageContaining("changed after it was checked");
        assertThat(elsewhere.toFile().list()).isEmpty();
    }

    @Test
    void theLastNameBeneathAPinnedDirectoryIsNotFollowed() throws IOException {
        Natives.require();
        Path base = root.toRealPath();
        Path dir = Files.createDirectories(base.resolve("ws"));
        Path target = Files.writeString(base.resolve("target"), "keep");
        Files.createSymbolicLink(dir.resolve("f"), target);
        try (Pinned p = Pinned.open(dir)) {
            assertThatThrownBy(() -> java.nio.channels.FileChannel.open(p.child(Path.of("f")),
                    java.nio.file.StandardOpenOption.WRITE, java.nio.file.LinkOption.NOFOLLOW_LINKS)).isInstanceOf(IOException.class);
        }
        assertThat(Files.readString(target)).isEqualTo("keep");
    }
}
