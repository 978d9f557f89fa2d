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

    /** Asked through a reader's lstat first, the stamp is the one of(Path) gives, whatever is at the name. */
    @Test
    void throughAReadersLstatTheStampIsTheSame() throws Exception {
        dev.magus.policy.path.DirectoryReader java = dev.magus.workspace.audit.Readers.java();
        Path f = Files.writeString(dir.resolve("f"), "a");
        Path link = Files.createSymbolicLink(dir.resolve("l"), f);
        Path dangling = Files.createSymbolicLink(dir.resolve("d"), dir.resolve("nowhere"));
        for (Path p : new Path[] {f, link, dangling, dir, dir.resolve("absent"), dir.resolve("absent/below")}) {
            assertThat(FileStamp.of(p, java)).as("%s", p).isEqualTo(FileStamp.of(p));
        }
        assertThat(FileStamp.of(dir.resolve("absent"), java)).isSameAs(FileStamp.ABSENT);
        assertThat(FileStamp.of(dangling, java).exists()).as("a dangling link is a name").isTrue();
        // What the reader says is absent (ENOENT, ENOTDIR) is, without asking the JDK.
        assertThat(FileStamp.of(f, reader(true))).isSameAs(FileStamp.ABSENT);
        // A reader whose lstat found nothing but cannot say why (a name it cannot pass to the
        // kernel, another error) leaves the answer to the JDK.
        for (Path p : new Path[] {f, link, dangling, dir}) {
            assertThat(FileStamp.of(p, reader(false))).as("%s", p).isEqualTo(FileStamp.of(p)).isNotSameAs(FileStamp.ABSENT);
        }
    }

    /** A reader that stats and lists nothing, and says {@code absent} of every path. */
    private static dev.magus.policy.path.DirectoryReader reader(boolean absent) {
        return new dev.magus.policy.path.DirectoryReader() {
            @Override
            public Optional<Stamp> stat(String absolutePath) {
                return Optional.empty();
            }

            @Override
            public boolean absent(String absolutePath) {
                return absent;
            }

            @Override
            public Optional<Listing> list(String absolutePath) {
                return Optional.empty();
            }
        };
    }

    /** From the attributes a caller's lstat read, the stamp is the one FileStamp.of takes: file and link alike. */
    @Test
    void fromTheCallersLstatTheStampIsTheSame() throws Exception {
        Path f = Files.writeString(dir.resolve("g"), "a");
        Path link = Files.createSymbolicLink(dir.resolve("m"), f);
        for (Path p : java.util.List.of(f, link)) {
            FileStamp given = FileStamp.ofAttributes(p,
                    Files.readAttributes(p, FileStamp.ATTRIBUTES, java.nio.file.LinkOption.NOFOLLOW_LINKS));
            assertThat(given).isEqualTo(FileStamp.of(p));
        }
        assertThat(FileStamp.ofAttributes(link, Files.readAttributes(link, FileStamp.ATTRIBUTES,
                java.nio.file.LinkOption.NOFOLLOW_LINKS)).target()).isPresent();
        // Attributes that are not what it needs: stamped on its own, never a made-up stamp.
        assertThat(FileStamp.ofAttributes(f, java.util.Map.of())).isEqualTo(FileStamp.of(f));
    }
}
