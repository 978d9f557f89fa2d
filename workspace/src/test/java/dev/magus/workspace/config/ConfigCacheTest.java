package dev.magus.workspace.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.magus.events.SandboxException;
import dev.magus.events.Mode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A cached magus.yaml is the one on disk: every way of changing the file is seen, even with the mtime put back. */
class ConfigCacheTest {
    @TempDir
    Path dir;
    private final ConfigCache cache = new ConfigCache();

    @Test
    void anUnchangedFileIsParsedOnce() throws Exception {
        Path yaml = Files.writeString(dir.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        WorkspaceConfig first = cache.parse(yaml).config();
        assertThat(first.mode()).isEqualTo(Mode.REQUIRED);
        assertThat(cache.parse(yaml).config()).isSameAs(first);
    }

    @Test
    void anInPlaceRewriteOfTheSameSizeWithTheMtimePutBackIsSeen() throws Exception {
        Path yaml = Files.writeString(dir.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        FileTime mtime = Files.getLastModifiedTime(yaml);
        assertThat(cache.parse(yaml).config().mode()).isEqualTo(Mode.REQUIRED);
        Thread.sleep(20); // a later ctime, whatever the file system's clock granularity
        Files.writeString(yaml, "sandbox:\n  mode: best-effort\n".substring(0, "sandbox:\n  mode: required\n".length()));
        Files.writeString(yaml, "sandbox:\n  mode: off     \n");
        Files.setLastModifiedTime(yaml, mtime); // as touch -r or an unpacked archive would
        assertThat(Files.size(yaml)).isEqualTo("sandbox:\n  mode: required\n".length());
        assertThat(cache.parse(yaml).config().mode()).isEqualTo(Mode.OFF);
    }

    @Test
    void aFileReplacedByRenameIsSeen() throws Exception {
        Path yaml = Files.writeString(dir.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        FileTime mtime = Files.getLastModifiedTime(yaml);
        assertThat(cache.parse(yaml).config().mode()).isEqualTo(Mode.REQUIRED);
        Path other = Files.writeString(dir.resolve("other"), "sandbox:\n  mode: off     \n");
        Files.setLastModifiedTime(other, mtime);
        Files.move(other, yaml, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        assertThat(cache.parse(yaml).config().mode()).isEqualTo(Mode.OFF);
    }

    @Test
    void aLinkRepointedIsSeen() throws Exception {
        Path a = Files.writeString(dir.resolve("a.yaml"), "sandbox:\n  mode: required\n");
        Path b = Files.writeString(dir.resolve("b.yaml"), "sandbox:\n  mode: off\n");
        Path yaml = Files.createSymbolicLink(dir.resolve("magus.yaml"), a.getFileName());
        assertThat(cache.parse(yaml).config().mode()).isEqualTo(Mode.REQUIRED);
        Files.delete(yaml);
        Files.createSymbolicLink(yaml, b.getFileName());
        assertThat(cache.parse(yaml).config().mode()).isEqualTo(Mode.OFF);
    }

    @Test
    void aBrokenFileIsRefusedEveryTimeAndNeverServedFromAnEarlierParse() throws Exception {
        Path yaml = Files.writeString(dir.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        assertThat(cache.parse(yaml).config().mode()).isEqualTo(Mode.REQUIRED);
        Files.writeString(yaml, "sandbox: [unclosed\n");
        assertThatThrownBy(() -> cache.parse(yaml).config()).isInstanceOf(SandboxException.class);
        assertThatThrownBy(() -> cache.parse(yaml).config()).isInstanceOf(SandboxException.class);
        Files.delete(yaml);
        assertThatThrownBy(() -> cache.parse(yaml).config()).isInstanceOf(SandboxException.class);
    }

    /** The stamp a caller took with the lstat that found the file (FileStamp.ofAttributes): the same cache, the same invalidation. */
    @Test
    void aStampFromTheFindingLstatServesAndStillSeesARenameOfTheSameSizeAndMtime() throws Exception {
        Path yaml = Files.writeString(dir.resolve("magus.yaml"), "sandbox:\n  mode: required\n");
        FileTime mtime = Files.getLastModifiedTime(yaml);
        ParsedConfig first = cache.parse(yaml, found(yaml));
        assertThat(first.config().mode()).isEqualTo(Mode.REQUIRED);
        assertThat(cache.parse(yaml, found(yaml))).isSameAs(first);
        assertThat(cache.parse(yaml)).as("the same stamp as FileStamp.of takes").isSameAs(first);
        Path other = Files.writeString(dir.resolve("other"), "sandbox:\n  mode: off     \n");
        Files.setLastModifiedTime(other, mtime);
        Files.move(other, yaml, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        assertThat(Files.size(yaml)).isEqualTo("sandbox:\n  mode: required\n".length());
        assertThat(cache.parse(yaml, found(yaml)).config().mode()).isEqualTo(Mode.OFF);
        Thread.sleep(20);
        Files.writeString(yaml, "sandbox:\n  mode: required\n");
        Files.setLastModifiedTime(yaml, mtime);
        assertThat(cache.parse(yaml, found(yaml)).config().mode()).isEqualTo(Mode.REQUIRED);
    }

    private static dev.magus.workspace.FileStamp found(Path yaml) throws java.io.IOException {
        return dev.magus.workspace.FileStamp.ofAttributes(yaml,
                Files.readAttributes(yaml, dev.magus.workspace.FileStamp.ATTRIBUTES, java.nio.file.LinkOption.NOFOLLOW_LINKS));
    }
}
