package dev.magus.orchestrator.temp;

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

    /**
     * The temp base as Files.createDirectories takes it (now looked at before any mkdir): made
     * when missing, used when a directory or a link to one, refused when a file.
     */
    @Test
    void thePrivateTempIsMadeOnlyUnderARealDirectory(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("a/b");
        Path made = Trees.createPrivateTemp(missing);
        assertThat(made.getParent()).isEqualTo(missing.toRealPath());
        assertThat(Files.getPosixFilePermissions(made)).containsExactlyInAnyOrder(
                java.nio.file.attribute.PosixFilePermission.OWNER_READ, java.nio.file.attribute.PosixFilePermission.OWNER_WRITE,
                java.nio.file.attribute.PosixFilePermission.OWNER_EXECUTE);
        assertThat(Trees.createPrivateTemp(missing)).isNotEqualTo(made).hasParent(missing.toRealPath());

        Path link = Files.createSymbolicLink(dir.resolve("link"), missing);
        assertThat(Trees.createPrivateTemp(link)).hasParent(missing.toRealPath());
        Path file = Files.writeString(dir.resolve("file"), "x");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Trees.createPrivateTemp(file))
                .isInstanceOf(java.nio.file.FileAlreadyExistsException.class);
    }
}
