package dev.magus.landlock.sys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.jna.NativeLibrary;
import dev.magus.policy.path.DirectoryReader;
import dev.magus.policy.path.DirectoryReader.Presence;
import dev.magus.policy.path.Filesystem;
import dev.magus.policy.path.Filesystem.Entry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.FutureTask;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link GetdentsReader#presence}: only the kernel's ENOENT and ENOTDIR are an answer, and
 * {@code Filesystem.real().lstat}, which takes that answer instead of the JDK's exceptions
 *, gives for every kind of path exactly what the JDK's {@code lstat} alone gives.
 */
class PresenceTest {
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

    /** Every case: its path, and the verdict the native lstat must give. */
    private Map<Path, Presence> cases() throws IOException {
        Path file = Files.writeString(t.resolve("file"), "x");
        Path dir = Files.createDirectory(t.resolve("dir"));
        Path link = Files.createSymbolicLink(t.resolve("link"), dir);
        Path dangling = Files.createSymbolicLink(t.resolve("dangling"), t.resolve("nowhere"));
        Path loop = Files.createSymbolicLink(t.resolve("loop"), t.resolve("loop"));
        Map<Path, Presence> c = new LinkedHashMap<>();
        c.put(file, Presence.FOUND);
        c.put(dir, Presence.FOUND);
        c.put(link, Presence.FOUND);
        c.put(dangling, Presence.FOUND);
        c.put(Path.of("/dev/null"), Presence.FOUND);
        c.put(t.resolve("absent"), Presence.NO_ENTRY);
        c.put(t.resolve("absent/below"), Presence.NO_ENTRY);
        c.put(dangling.resolve("below"), Presence.NO_ENTRY);
        c.put(link.resolve("absent"), Presence.NO_ENTRY);
        c.put(file.resolve("below"), Presence.NOT_A_DIRECTORY);
        c.put(loop.resolve("below"), Presence.UNSURE); // ELOOP
        c.put(t.resolve("n".repeat(300)), Presence.UNSURE); // ENAMETOOLONG: a component over 255 bytes
        c.put(t.resolve("long/".repeat(900) + "x"), Presence.UNSURE); // over PATH_MAX: not passed at all
        c.put(Path.of("relative-absent"), Presence.UNSURE); // not absolute: not passed at all
        return c;
    }

    @Test
    void onlyENOENTAndENOTDIRAreAnAnswer() throws IOException {
        cases().forEach((p, want) -> assertThat(reader.presence(p.toString())).as(p.toString()).isEqualTo(want));
        assertThat(reader.presence(t + "/with\0nul")).isEqualTo(Presence.UNSURE);
        assertThat(reader.presence("")).isEqualTo(Presence.UNSURE);
    }

    @Test
    void lstatAnswersAsTheJdkAloneForEveryCase() throws IOException {
        for (Path p : cases().keySet()) {
            assertThat(Filesystem.real().lstat(p)).as(p.toString()).usingRecursiveComparison().isEqualTo(jdkLstat(p));
        }
        assertThat(Filesystem.real().lstat(t.resolve("absent")).kind()).isEqualTo(Entry.Kind.MISSING);
        assertThat(Filesystem.real().lstat(t.resolve("dangling")).kind()).isEqualTo(Entry.Kind.LINK);
    }

    /** {@link GetdentsReader#lstat}: one native lstat gives the kind, or ABSENT exactly where presence is an answer. */
    @Test
    void lstatGivesTheKindOrAbsentExactlyWherePresenceAnswers() throws IOException {
        Map<Path, Presence> cases = cases();
        cases.forEach((p, presence) -> {
            DirectoryReader.Lstat said = reader.lstat(p.toString());
            if (presence == Presence.FOUND) {
                Entry jdk = jdkLstat(p);
                DirectoryReader.Lstat want = jdk.kind() == Entry.Kind.DIRECTORY ? DirectoryReader.Lstat.DIRECTORY
                        : jdk.kind() == Entry.Kind.FILE ? DirectoryReader.Lstat.FILE
                        : jdk.kind() == Entry.Kind.LINK ? DirectoryReader.Lstat.LINK : DirectoryReader.Lstat.OTHER;
                assertThat(said).as(p.toString()).isEqualTo(want);
            } else if (presence == Presence.UNSURE) {
                assertThat(said).as(p.toString()).isEqualTo(DirectoryReader.Lstat.UNSURE);
            } else {
                assertThat(said).as(p.toString()).isEqualTo(DirectoryReader.Lstat.ABSENT);
            }
        });
        assertThat(reader.lstat("/dev/null")).isEqualTo(DirectoryReader.Lstat.OTHER);
        assertThat(reader.lstat(t + "/with\0nul")).isEqualTo(DirectoryReader.Lstat.UNSURE);
    }

    @Test
    void aNameTheJvmCannotPassUnchangedIsLeftToTheJdk() throws IOException {
        // A lone surrogate: encoded it would be another name; the JDK says what it says of it.
        String odd = t + "/odd\uD800name";
        assertThat(reader.presence(odd)).isEqualTo(Presence.UNSURE);
        Path p;
        try {
            p = Path.of(odd);
        } catch (java.nio.file.InvalidPathException jvmRefuses) {
            return; // the JVM cannot name it at all: no lstat of it is ever asked
        }
        assertThat(Filesystem.real().lstat(p)).usingRecursiveComparison().isEqualTo(jdkLstat(p));
    }

    @Test
    void permissionDeniedIsLeftToTheJdk() throws Exception {
        Path locked = Files.createDirectory(t.resolve("locked"));
        Files.writeString(locked.resolve("inside"), "x");
        Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("---------"));
        try {
            Object[] seen = asNobody(() -> new Object[] {reader.presence(locked.resolve("inside").toString()),
                    reader.presence(locked.resolve("absent").toString()), Filesystem.real().lstat(locked.resolve("inside")),
                    jdkLstat(locked.resolve("inside")), Filesystem.real().lstat(locked.resolve("absent")),
                    jdkLstat(locked.resolve("absent"))});
            assertThat(seen[0]).as("EACCES, not an answer").isEqualTo(Presence.UNSURE);
            assertThat(seen[1]).as("EACCES, not an answer").isEqualTo(Presence.UNSURE);
            assertThat(seen[2]).usingRecursiveComparison().isEqualTo(seen[3]);
            assertThat(seen[4]).usingRecursiveComparison().isEqualTo(seen[5]);
            assertThat(reader.presence(locked.resolve("inside").toString())).as("root, with its capabilities").isEqualTo(Presence.FOUND);
        } finally {
            Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("rwx------"));
        }
    }

    /** What {@code Filesystem.real().lstat} answered before it asked the native lstat first: the JDK alone. */
    private static Entry jdkLstat(Path p) {
        try {
            BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (a.isSymbolicLink()) {
                String target = Files.readSymbolicLink(p).toString();
                return target.isEmpty() ? Entry.MISSING : Entry.link(target);
            }
            return a.isDirectory() ? Entry.DIRECTORY : a.isRegularFile() ? Entry.FILE : Entry.OTHER;
        } catch (IOException e) {
            return Entry.MISSING;
        }
    }

    /**
     * {@code call} on a thread whose file-system uid is nobody's ({@code setfsuid} is per thread):
     * the kernel then clears that thread's CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH, so a mode
     * 000 directory refuses it as it refuses any other user.
     */
    static <T> T asNobody(Callable<T> call) throws Exception {
        assumeTrue(ProcessHandle.current().info().user().map("root"::equals).orElse(false),
                "skipped: needs root to take another file-system uid on one thread");
        var setfsuid = NativeLibrary.getInstance("c").getFunction("setfsuid");
        FutureTask<T> task = new FutureTask<>(() -> {
            setfsuid.invokeInt(new Object[] {65534});
            int now = setfsuid.invokeInt(new Object[] {-1});
            if (now != 65534) {
                throw new IllegalStateException("setfsuid did not take: " + now);
            }
            return call.call();
        });
        Thread th = new Thread(task, "as-nobody");
        th.start();
        th.join();
        return task.get();
    }
}
