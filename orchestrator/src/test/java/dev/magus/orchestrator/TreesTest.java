package dev.magus.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Removing a run's private temp dir never reaches through a link a child left in it. */
class TreesTest {

    @Test
    void aTreeIsRemovedWholeAndWhatItsLinksPointAtIsLeftAlone(@TempDir Path dir) throws Exception {
        Path outside = Files.createDirectories(dir.resolve("home/secret"));
        Files.writeString(outside.resolve("victim"), "keep me");
        Path temp = Files.createDirectories(dir.resolve("temp"));
        Files.createDirectories(temp.resolve("a/b/c"));
        Files.writeString(temp.resolve("a/b/c/file"), "x");
        Files.writeString(temp.resolve("top"), "x");
        Files.createSymbolicLink(temp.resolve("a/toSecret"), outside);
        Files.createSymbolicLink(temp.resolve("a/b/toVictim"), outside.resolve("victim"));
        Files.createSymbolicLink(temp.resolve("dangling"), dir.resolve("nowhere"));

        Trees.deleteQuietly(temp);

        assertThat(temp).doesNotExist();
        assertThat(outside.resolve("victim")).hasContent("keep me");
        assertThat(outside).isDirectory();
    }

    @Test
    void aTempDirThatIsAlreadyGoneIsNoError(@TempDir Path dir) {
        Path gone = dir.resolve("gone");

        Trees.deleteQuietly(gone);

        assertThat(gone).doesNotExist();
        assertThat(dir).isDirectory();
    }
}
