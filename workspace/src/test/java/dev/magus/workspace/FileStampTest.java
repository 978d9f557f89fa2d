package dev.magus.workspace;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** FileStamp's written-out toString is the record's own form, which caches keep in their files. */
class FileStampTest {
    @TempDir
    Path dir;

    @Test
    void toStringIsTheRecordForm() {
        FileStamp.Stat s = new FileStamp.Stat(1, 2, 3, 4, 5, 6);
        assertThat(s.toString()).isEqualTo("Stat[dev=1, ino=2, size=3, mtimeNanos=4, ctimeNanos=5, mode=6]");
        assertThat(new FileStamp(Optional.of(s), Optional.empty()).toString())
                .isEqualTo("FileStamp[name=Optional[Stat[dev=1, ino=2, size=3, mtimeNanos=4, ctimeNanos=5, mode=6]],"
                        + " target=Optional.empty]");
        assertThat(FileStamp.ABSENT.toString()).isEqualTo("FileStamp[name=Optional.empty, target=Optional.empty]");
    }

    @Test
    void aLinkCarriesBothStampsAndAChangedFileAnotherString() throws Exception {
        Path f = Files.writeString(dir.resolve("f"), "a");
        Path link = Files.createSymbolicLink(dir.resolve("l"), f);
        FileStamp before = FileStamp.of(link);
        assertThat(before.name()).isPresent();
        assertThat(before.target()).isPresent();
        Files.writeString(f, "bb");
        assertThat(FileStamp.of(link).toString()).isNotEqualTo(before.toString());
    }
}
