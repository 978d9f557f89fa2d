package dev.magus.landlock.sys;

import static org.assertj.core.api.Assertions.assertThat;

import dev.magus.policy.watch.ChangeWatcher;
import dev.magus.policy.watch.ChangeWatcher.Drained;
import dev.magus.policy.watch.ChangeWatcher.Event;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fanotify watcher against a real child that changes a real tree (needs root: a filesystem mark). */
class FanotifyWatcherTest {
    @TempDir
    Path tmp;
    Path t;
    final FanotifyWatcher watcher = new FanotifyWatcher();

    @BeforeAll
    static void linuxOnly() {
        KernelLookupHost.assumeLinuxAndLoadNatives();
    }

    @BeforeEach
    void realTemp() throws IOException {
        t = tmp.toRealPath();
    }

    private ChangeWatcher.Watching start() {
        ChangeWatcher.Started s = watcher.start(List.of(t));
        Assumptions.assumeTrue(s instanceof ChangeWatcher.Watching,
                () -> "fanotify refused here (this test needs root): " + ((ChangeWatcher.Refused) s).reason());
        return (ChangeWatcher.Watching) s;
    }

    private static void child(Path dir, String script) throws Exception {
        Process p = new ProcessBuilder("sh", "-c", script).directory(dir.toFile()).inheritIO().start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
    }

    private static void has(List<Event> events, Path dir, String name, long bits) {
        assertThat(events).as("%s in %s with 0x%x", name, dir, bits)
                .anyMatch(e -> e.directory().equals(dir) && e.name().equals(name) && (e.mask() & bits) == bits);
    }

    @Test
    void isInstalledAsTheServiceAndWorksAsRoot() {
        assertThat(ServiceLoader.load(ChangeWatcher.class).stream().map(ServiceLoader.Provider::type))
                .contains(FanotifyWatcher.class);
        try (ChangeWatcher.Watching w = start()) {
            assertThat(w.drain()).isInstanceOf(ChangeWatcher.Events.class);
        }
    }

    @Test
    void aChildsNamesAreReportedByTheirDirectory() throws Exception {
        Files.createDirectories(t.resolve("a/b"));
        Files.writeString(t.resolve("a/hook"), "x");
        ChangeWatcher.Watching w = start();
        child(t, "touch a/b/.envrc && mkdir a/new && mv a/hook a/b/renamed && chmod 700 a/b && rm a/b/renamed"
                + " && echo more >> a/b/.envrc");
        Drained d = w.drain();
        assertThat(d).isInstanceOf(ChangeWatcher.Events.class);
        List<Event> events = ((ChangeWatcher.Events) d).events();
        // Events of one name merge (touch: FAN_CREATE | FAN_ATTRIB); other processes' come too.
        has(events, t.resolve("a/b"), ".envrc", FanotifyWatcher.FAN_CREATE);
        has(events, t.resolve("a"), "new", FanotifyWatcher.FAN_CREATE | FanotifyRecords.FAN_ONDIR);
        has(events, t.resolve("a"), "hook", FanotifyWatcher.FAN_MOVED_FROM);
        has(events, t.resolve("a/b"), "renamed", FanotifyWatcher.FAN_MOVED_TO);
        has(events, t.resolve("a/b"), "renamed", FanotifyWatcher.FAN_DELETE);
        // chmod of a directory: its own event, or its name in its parent.
        has(events, t.resolve("a/b"), ".", FanotifyWatcher.FAN_ATTRIB | FanotifyRecords.FAN_ONDIR);
        // Closing after the drain: draining again is a doubt, never an empty "nothing changed".
        assertThat(w.drain()).isInstanceOf(ChangeWatcher.Doubt.class);
        w.close();
    }

    @Test
    void aRemovedDirectoryIsPassedOverAndItsRemovalIsInItsParent() throws Exception {
        Files.createDirectories(t.resolve("gone/deep"));
        ChangeWatcher.Watching w = start();
        child(t, "touch gone/deep/x && rm -r gone");
        Drained d = w.drain();
        assertThat(d).isInstanceOf(ChangeWatcher.Events.class);
        List<Event> events = ((ChangeWatcher.Events) d).events();
        has(events, t, "gone", FanotifyWatcher.FAN_DELETE | FanotifyRecords.FAN_ONDIR);
        assertThat(events).noneMatch(e -> e.directory().startsWith(t.resolve("gone")));
    }

    @Test
    void aLiveDirectoryNamedLikeADeletedOneIsStillReported() throws Exception {
        Path odd = Files.createDirectories(t.resolve("x (deleted)"));
        ChangeWatcher.Watching w = start();
        child(odd, "touch .envrc");
        Drained d = w.drain();
        assertThat(d).isInstanceOf(ChangeWatcher.Events.class);
        has(((ChangeWatcher.Events) d).events(), odd, ".envrc", FanotifyWatcher.FAN_CREATE);
    }

    @Test
    void anOverflowedQueueIsADoubt() throws Exception {
        Files.createDirectories(t.resolve("many"));
        ChangeWatcher.Watching w = start();
        // More names than the kernel's default queue (16384 events) holds.
        child(t.resolve("many"), "seq 1 20000 | xargs touch");
        Drained d = w.drain();
        assertThat(d).isInstanceOfSatisfying(ChangeWatcher.Doubt.class,
                doubt -> assertThat(doubt.reason()).contains("overflow"));
    }

    @Test
    void aMountBeneathARootIsRefusedFromMountinfo() {
        List<String> info = List.of(
                "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw",
                "40 22 0:35 / /work/ws/sub\\040dir rw - tmpfs tmpfs rw");
        assertThat(FanotifyWatcher.mountedBeneath(List.of(Path.of("/work/ws")), info)).get().asString()
                .contains("/work/ws/sub dir");
        assertThat(FanotifyWatcher.mountedBeneath(List.of(Path.of("/work/other")), info)).isEmpty();
        assertThat(FanotifyWatcher.mountedBeneath(List.of(Path.of("/work/ws/sub dir")), info)).isEmpty();
    }

    @Test
    void aRememberedVerdictHoldsOnlyForTheVeryTableItJudged() {
        List<Path> roots = List.of(Path.of("/work/ws"));
        byte[] plain = "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] mounted = ("22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
                + "40 22 0:35 / /work/ws/m rw - tmpfs tmpfs rw\n").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(FanotifyWatcher.mountedBeneath(roots, plain)).isEmpty();
        assertThat(FanotifyWatcher.mountedBeneath(roots, plain)).isEmpty();
        assertThat(FanotifyWatcher.mountedBeneath(roots, mounted)).get().asString().contains("/work/ws/m");
        assertThat(FanotifyWatcher.mountedBeneath(roots, plain)).isEmpty();
        // Other roots under the same table: judged for themselves.
        assertThat(FanotifyWatcher.mountedBeneath(List.of(Path.of("/work")), plain)).isEmpty();
        assertThat(FanotifyWatcher.mountedBeneath(List.of(Path.of("/work")), mounted)).isPresent();
        // A table that is not UTF-8 is refused, as the line reader refused it.
        assertThat(FanotifyWatcher.mountedBeneath(roots, new byte[] {'2', ' ', (byte) 0xff, '\n'})).isPresent();
    }

    @Test
    void aMountMadeBetweenTwoStartsRefusesTheSecond() throws Exception {
        start().close();
        Path m = Files.createDirectories(t.resolve("m"));
        Process p = new ProcessBuilder("mount", "-t", "tmpfs", "none", m.toString()).inheritIO().start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        Assumptions.assumeTrue(p.exitValue() == 0, "cannot mount a tmpfs here (needs root and mount(8))");
        try {
            ChangeWatcher.Started s = watcher.start(List.of(t));
            assertThat(s).isInstanceOfSatisfying(ChangeWatcher.Refused.class,
                    r -> assertThat(r.reason()).contains("mounted beneath"));
        } finally {
            child(t, "umount " + m);
        }
        start().close();
    }

    @Test
    void theMountIdComesFromFdinfo() {
        assertThat(FanotifyWatcher.mountId(List.of("pos:\t0", "flags:\t02100000", "mnt_id:\t29", "ino:\t12")))
                .contains(29);
        assertThat(FanotifyWatcher.mountId(List.of("pos:\t0"))).isEmpty();
        assertThat(FanotifyWatcher.mountId(List.of("mnt_id:\tx"))).isEmpty();
    }

    /**
     * Two roots on one filesystem through different mounts (a bind mount of one): handles are
     * resolved through one descriptor per filesystem, which cannot reach the other mount's
     * directories, so the watch is refused and the caller walks (review finding 3).
     */
    @Test
    void twoRootsOnOneFilesystemThroughDifferentMountsAreRefused() throws Exception {
        start().close();
        Path fs = Files.createDirectories(t.resolve("fs"));
        Path main = Files.createDirectories(fs.resolve("main/.git/hooks"));
        Path wt = Files.createDirectories(fs.resolve("wt"));
        Path mnt = Files.createDirectories(t.resolve("wtmnt"));
        Process bind = new ProcessBuilder("mount", "--bind", wt.toString(), mnt.toString()).inheritIO().start();
        Assumptions.assumeTrue(bind.waitFor(30, TimeUnit.SECONDS) && bind.exitValue() == 0,
                "mount --bind refused here: this test needs root");
        try {
            ChangeWatcher.Started s = watcher.start(List.of(mnt, main.getParent()));
            assertThat(s).isInstanceOfSatisfying(ChangeWatcher.Refused.class,
                    r -> assertThat(r.reason()).contains("different mounts"));
            ChangeWatcher.Started same = watcher.start(List.of(wt, main.getParent()));
            assertThat(same).isInstanceOf(ChangeWatcher.Watching.class);
            ((ChangeWatcher.Watching) same).close();
        } finally {
            new ProcessBuilder("umount", mnt.toString()).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
        }
    }
}
