package dev.magus.landlock.sys;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.policy.path.DirectoryReader;
import dev.magus.policy.path.DirectoryReader.Entry;
import dev.magus.policy.path.DirectoryReader.Kind;
import dev.magus.policy.path.DirectoryReader.Stamp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The getdents64 reader against what Java itself says of the same tree. */
class GetdentsReaderTest {
    @TempDir
    Path tmp;
    Path t;
    final GetdentsReader reader = new GetdentsReader();

    @BeforeAll
    static void linuxOnly() {
        KernelLookupHost.assumeLinuxAndLoadNatives();
    }

    @BeforeEach
    void realTemp() throws IOException {
        t = tmp.toRealPath();
    }

    @Test
    void isInstalledAndAvailable() {
        assertThat(reader.available()).isTrue();
        assertThat(ServiceLoader.load(DirectoryReader.class).stream().map(p -> p.type().getName()).toList())
                .contains(GetdentsReader.class.getName());
    }

    @Test
    void listsNamesKindsAndInodesAsJavaSeesThem() throws IOException {
        Files.writeString(t.resolve("file.txt"), "x");
        Files.createDirectory(t.resolve("dir"));
        Files.createSymbolicLink(t.resolve("link"), t.resolve("dir"));
        Files.createSymbolicLink(t.resolve("dangling"), t.resolve("nowhere"));
        Files.writeString(t.resolve("näme ünicode"), "y");
        // More than one getdents64 buffer of names.
        for (int i = 0; i < 2500; i++) {
            Files.writeString(t.resolve("a-rather-long-name-to-fill-the-buffer-" + i), "");
        }
        List<Entry> entries = reader.list(t.toString()).orElseThrow().entries();
        Map<String, Entry> byName = new HashMap<>();
        entries.forEach(e -> byName.put(e.name(), e));
        assertThat(byName).hasSize(2505).doesNotContainKeys(".", "..");
        assertThat(byName.get("file.txt").kind()).isEqualTo(Kind.FILE);
        assertThat(byName.get("dir").kind()).isEqualTo(Kind.DIRECTORY);
        assertThat(byName.get("link").kind()).isEqualTo(Kind.LINK);
        assertThat(byName.get("dangling").kind()).isEqualTo(Kind.LINK);
        assertThat(byName).containsKey("näme ünicode");
        for (Entry e : List.of(byName.get("file.txt"), byName.get("dir"), byName.get("link"))) {
            assertThat(e.ino()).isEqualTo(((Number) Files.getAttribute(t.resolve(e.name()), "unix:ino",
                    LinkOption.NOFOLLOW_LINKS)).longValue());
        }
    }

    /** Absent only for ENOENT and ENOTDIR; any entry (a dangling link too), and whatever it cannot pass, is not. */
    @Test
    void absentOnlyWhenTheKernelSaysNothingIsThere() throws IOException {
        Path file = Files.writeString(t.resolve("file"), "x");
        Path dangling = Files.createSymbolicLink(t.resolve("dangling"), t.resolve("nowhere"));
        assertThat(reader.absent(t.resolve("nowhere").toString())).isTrue();
        assertThat(reader.absent(t.resolve("nowhere/below").toString())).isTrue();
        assertThat(reader.absent(file.resolve("below").toString())).as("ENOTDIR").isTrue();
        assertThat(reader.absent(file.toString())).isFalse();
        assertThat(reader.absent(dangling.toString())).as("the link is there").isFalse();
        assertThat(reader.absent(t.toString())).isFalse();
        assertThat(reader.absent(t + "/" + "x".repeat(5000))).as("too long to pass: the JDK says").isFalse();
        assertThat(reader.absent(t + "/nul\0here")).as("a NUL: not passed unchanged").isFalse();
    }

    @Test
    void statIsLstatWithNanosecondTimes() throws IOException {
        Path f = Files.writeString(t.resolve("f"), "12345");
        Files.setLastModifiedTime(f, FileTime.from(1_700_000_000_123_456_789L, TimeUnit.NANOSECONDS));
        Path l = Files.createSymbolicLink(t.resolve("l"), f);
        Stamp s = reader.stat(f.toString()).orElseThrow();
        assertThat(s.kind()).isEqualTo(Kind.FILE);
        assertThat(s.size()).isEqualTo(5);
        assertThat(s.nlink()).isEqualTo(1);
        assertThat(s.mtimeNanos()).isEqualTo(1_700_000_000_123_456_789L);
        assertThat(s.ino()).isEqualTo(((Number) Files.getAttribute(f, "unix:ino")).longValue());
        assertThat(s.permissions()).isEqualTo(((Number) Files.getAttribute(f, "unix:mode")).intValue() & 07777);
        assertThat(s.ctimeNanos()).isEqualTo(((FileTime) Files.getAttribute(f, "unix:ctime")).to(TimeUnit.NANOSECONDS));
        assertThat(reader.stat(l.toString()).orElseThrow().kind()).as("the link itself").isEqualTo(Kind.LINK);
        assertThat(reader.stat(t.resolve("missing").toString())).isEmpty();
    }

    @Test
    void neverListsThroughALinkAtTheEndOrANonDirectory() throws IOException {
        Path dir = Files.createDirectory(t.resolve("dir"));
        Files.writeString(dir.resolve("inside"), "");
        Path link = Files.createSymbolicLink(t.resolve("link"), dir);
        assertThat(reader.list(link.toString())).isEmpty();
        assertThat(reader.list(dir.resolve("inside").toString())).isEmpty();
        assertThat(reader.list(t.resolve("missing").toString())).isEmpty();
        assertThat(reader.list("relative/path")).isEmpty();
        assertThat(reader.list(dir + "\0x")).isEmpty();
        assertThat(reader.list(dir.toString()).orElseThrow().entries()).extracting(Entry::name).containsExactly("inside");
    }
}
