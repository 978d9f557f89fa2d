package dev.magus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** bin/magus's class archives made before the JDK last changed are dropped; newer ones and other files stay. */
class ClassArchivesTest {
    @TempDir
    Path tmp;

    @Test
    void anArchiveOlderThanTheJdksLastChangeIsDroppedAndANewerOneKept() throws Exception {
        Path jdk = Files.createDirectories(tmp.resolve("jdk/lib/server"));
        // Written now: their ctime is now, whatever their modification time says (as a package
        // manager leaves it: the package's own, older date).
        Files.writeString(jdk.resolve("classes.jsa"), "base archive");
        Files.setLastModifiedTime(jdk.resolve("classes.jsa"), FileTime.from(Instant.parse("2020-01-01T00:00:00Z")));
        Path target = Files.createDirectories(tmp.resolve("target"));
        Path old = target.resolve("magus-ws-12.jsa");
        Path fresh = target.resolve("magus-full-34.jsa");
        Path other = target.resolve("cli.jar");
        for (Path p : new Path[] {old, fresh, other}) {
            Files.writeString(p, "x");
        }
        Instant now = Instant.now();
        Files.setLastModifiedTime(old, FileTime.from(now.minus(Duration.ofHours(1))));
        Files.setLastModifiedTime(fresh, FileTime.from(now.plus(Duration.ofHours(1))));
        Files.setLastModifiedTime(other, FileTime.from(now.minus(Duration.ofDays(1))));

        assertThat(ClassArchives.dropStale(target, tmp.resolve("jdk"))).isEqualTo(1);
        assertThat(old).doesNotExist();
        assertThat(fresh).exists();
        assertThat(other).as("not an archive of bin/magus").exists();
    }

    @Test
    void onlyRegularFilesUnderAnArchivesNameAreDropped() throws Exception {
        Path jdk = Files.createDirectories(tmp.resolve("jdk/lib"));
        Files.writeString(jdk.resolve("modules"), "image");
        Path target = Files.createDirectories(tmp.resolve("target"));
        Path elsewhere = Files.writeString(tmp.resolve("mine.jsa"), "a user's file");
        Path link = Files.createSymbolicLink(target.resolve("magus-ws-7.jsa"), elsewhere);
        Path dir = Files.createDirectory(target.resolve("magus-full-8.jsa"));
        Path odd = Files.writeString(target.resolve("magus-mine.jsa"), "x");
        Path noPid = Files.writeString(target.resolve("magus-fast-.jsa"), "x");
        FileTime old = FileTime.from(Instant.parse("2000-01-01T00:00:00Z"));
        for (Path p : new Path[] {elsewhere, odd, noPid}) {
            Files.setLastModifiedTime(p, old);
        }
        Files.setLastModifiedTime(dir, old);

        assertThat(ClassArchives.dropStale(target, tmp.resolve("jdk"))).isZero();
        assertThat(link).isSymbolicLink();
        assertThat(elsewhere).exists();
        assertThat(dir).isDirectory();
        assertThat(odd).exists();
        assertThat(noPid).exists();
        assertThat(ClassArchives.isArchiveName("magus-ws-123.jsa")).isTrue();
        assertThat(ClassArchives.isArchiveName("magus-ws-12a.jsa")).isFalse();
    }

    @Test
    void noReadableJdkFileDropsNothing() throws Exception {
        Path target = Files.createDirectories(tmp.resolve("target"));
        Path archive = Files.writeString(target.resolve("magus-fast-1.jsa"), "x");
        Files.setLastModifiedTime(archive, FileTime.from(Instant.parse("2000-01-01T00:00:00Z")));
        assertThat(ClassArchives.jdkChanged(tmp.resolve("no-jdk"))).isEmpty();
        assertThat(ClassArchives.dropStale(target, tmp.resolve("no-jdk"))).isZero();
        assertThat(archive).exists();
    }

    @Test
    void theRunningJdkHasAChangeTime() {
        assertThat(ClassArchives.jdkChanged(Path.of(System.getProperty("java.home"))))
                .as("lib/modules at least, in every JDK 9+")
                .isPresent();
    }

    @Test
    void staleIsStrictlyOlder() {
        FileTime t = FileTime.from(Instant.parse("2026-01-01T00:00:00Z"));
        assertThat(ClassArchives.stale(t, t)).isFalse();
        assertThat(ClassArchives.stale(FileTime.from(Instant.parse("2025-12-31T23:59:59Z")), t)).isTrue();
    }

    @Test
    void aThinArchiveIsKeptUntilAnUnmarkedOneOfItsKindExists() throws Exception {
        Path target = Files.createDirectories(tmp.resolve("target"));
        Path thinWs = Files.writeString(target.resolve("magus-ws-21.jsa"), "x");
        Path thinFull = Files.writeString(target.resolve("magus-full-24.jsa"), "x");
        ClassArchives.markThin(thinWs);
        ClassArchives.markThin(thinWs);
        ClassArchives.markThin(thinFull);
        Path notOurs = Files.createFile(target.resolve("notes.thin"));
        // Only thin ones of its kind: kept (bin/magus maps one once it has made three).
        assertThat(ClassArchives.dropStale(target, tmp.resolve("no-jdk"))).isZero();
        assertThat(thinWs).exists();
        assertThat(target.resolve("magus-ws-21.jsa.thin")).exists();

        Path fullWs = Files.writeString(target.resolve("magus-ws-22.jsa"), "x");
        assertThat(ClassArchives.dropStale(target, tmp.resolve("no-jdk"))).isEqualTo(1);
        assertThat(thinWs).doesNotExist();
        assertThat(target.resolve("magus-ws-21.jsa.thin")).doesNotExist();
        assertThat(fullWs).exists();
        assertThat(thinFull).as("another kind: no unmarked one of its own").exists();
        assertThat(notOurs).exists();
    }

    @Test
    void aMarkWithoutItsArchiveGoesOnlyOnceItIsOld() throws Exception {
        Path target = Files.createDirectories(tmp.resolve("target"));
        Path young = Files.createFile(target.resolve("magus-full-23.jsa.thin"));
        Path old = Files.createFile(target.resolve("magus-full-25.jsa.thin"));
        Files.setLastModifiedTime(old, FileTime.from(Instant.now().minus(ClassArchives.ORPHAN_MARK).minusSeconds(60)));
        assertThat(ClassArchives.dropStale(target, tmp.resolve("no-jdk"))).isZero();
        // Its JVM may still be about to dump the archive: the mark stays a while.
        assertThat(young).exists();
        assertThat(old).doesNotExist();
    }

    @Test
    void aThinMarksLinkedArchiveIsNotFollowed() throws Exception {
        Path target = Files.createDirectories(tmp.resolve("target"));
        Path elsewhere = Files.writeString(tmp.resolve("mine.jsa"), "a user's file");
        Path link = Files.createSymbolicLink(target.resolve("magus-ws-5.jsa"), elsewhere);
        ClassArchives.markThin(link);
        assertThat(ClassArchives.dropStale(target, tmp.resolve("no-jdk"))).isZero();
        assertThat(link).isSymbolicLink();
        assertThat(elsewhere).exists();
    }
}
